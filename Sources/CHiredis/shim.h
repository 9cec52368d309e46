#ifndef AWI_CHIREDIS_SHIM_H
#define AWI_CHIREDIS_SHIM_H

#include <sys/time.h>
#include <hiredis/hiredis.h>

/// The reply types as plain constants: hiredis spells them as macros.
static const int CHiredis_REPLY_STRING = REDIS_REPLY_STRING;
static const int CHiredis_REPLY_ARRAY = REDIS_REPLY_ARRAY;
static const int CHiredis_REPLY_INTEGER = REDIS_REPLY_INTEGER;
static const int CHiredis_REPLY_NIL = REDIS_REPLY_NIL;
static const int CHiredis_REPLY_STATUS = REDIS_REPLY_STATUS;
static const int CHiredis_REPLY_ERROR = REDIS_REPLY_ERROR;

/// A context's error string, which Swift sees as a fixed-size tuple.
static inline const char *CHiredis_errstr(const redisContext *context) {
    return context->errstr;
}

#endif
