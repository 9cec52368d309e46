#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H
// glibc's allocator controls from <malloc.h>, which Swift's Glibc module does
// not import. Typed wrappers: mallopt's parameters are macros, and mallinfo2's
// struct is read field by field so callers need not know its layout.
#include <malloc.h>
#include <stddef.h>

/// mallopt(M_MMAP_THRESHOLD): 1 on success, 0 when glibc refuses the value.
static inline int awi_mallopt_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
/// mallopt(M_TRIM_THRESHOLD).
static inline int awi_mallopt_trim_threshold(int bytes) { return mallopt(M_TRIM_THRESHOLD, bytes); }
/// mallopt(M_ARENA_MAX).
static inline int awi_mallopt_arena_max(int count) { return mallopt(M_ARENA_MAX, count); }
/// malloc_trim: 1 when memory was returned to the system.
static inline int awi_malloc_trim(size_t pad) { return malloc_trim(pad); }
/// Bytes in chunks the allocator got from mmap (mallinfo2().hblkhd).
static inline size_t awi_mallinfo_mmapped_bytes(void) { return mallinfo2().hblkhd; }
/// Bytes the main arena got from sbrk (mallinfo2().arena).
static inline size_t awi_mallinfo_arena_bytes(void) { return mallinfo2().arena; }
/// Free bytes held by the allocator (mallinfo2().fordblks).
static inline size_t awi_mallinfo_free_bytes(void) { return mallinfo2().fordblks; }

#endif
