#ifndef CXXHASH_SHIM_H
#define CXXHASH_SHIM_H
// xxHash (libxxhash-dev): the disk store's entry checksum, XXH3 64-bit.
// The library's exported functions, not the header-only inline build.
#include <stddef.h>
#include <xxhash.h>

/// XXH3_64bits with its seed-less signature spelled out, so Swift sees one
/// typed entry point whatever the header's macros rename it to.
static inline unsigned long long awi_xxh3_64(const void *bytes, size_t count) {
    return (unsigned long long)XXH3_64bits(bytes, count);
}

#endif
