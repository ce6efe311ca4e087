/* The build's version string (git describe --always --dirty, or "unknown"). */
#ifndef IOSCORE_VERSION_API_H
#define IOSCORE_VERSION_API_H

const char *ios_version(void);

#endif
