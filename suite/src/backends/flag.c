/* Flag option words of backends; see include/ioscore/backend.h. */
#include <string.h>

#include "ioscore/backend.h"
#include "ioscore/util.h"

int ios_backend_flag(const char *word)
{
    const char *eq = strchr(word, '=');
    if (!eq)
        return 1;
    if (strcmp(eq + 1, "1") == 0 || ios_streq_nocase(eq + 1, "true"))
        return 1;
    if (strcmp(eq + 1, "0") == 0 || ios_streq_nocase(eq + 1, "false"))
        return 0;
    return -1;
}
