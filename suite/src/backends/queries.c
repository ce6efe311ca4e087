/*
 * What generic code may ask of a configured backend. The option values live in the backend's
 * private state (struct ios_backend.state); these calls ask the backend through its optional
 * ops, so no code outside a backend's file reads them.
 */
#include <stddef.h>

#include "ioscore/backend.h"

unsigned ios_backend_modes(const struct ios_backend *be)
{
    return be->ops->modes ? be->ops->modes(be) : 0;
}

int ios_backend_hints(const struct ios_backend *be, const struct ios_hint **hints)
{
    *hints = NULL;
    return be->ops->hints ? be->ops->hints(be, hints) : 0;
}

int ios_backend_set_collective(struct ios_backend *be)
{
    if (!(be->ops->caps & IOS_CAP_COLLECTIVE) || !be->ops->set_collective) {
        be->ignored_caps |= IOS_CAP_COLLECTIVE;
        return -1;
    }
    be->ops->set_collective(be);
    return 0;
}
