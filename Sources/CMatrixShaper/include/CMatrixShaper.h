#ifndef CMATRIXSHAPER_H
#define CMATRIXSHAPER_H

#include <stddef.h>
#include <stdint.h>

// The AVX-512 (VBMI) path of AsyncWebImage's MatrixShaperKernel: the same
// tables, read with byte permutes instead of scalar loads, and the same
// bytes out. The package builds for baseline x86-64, so the vector code is
// compiled for AVX-512 function by function and chosen at run time.

/// Bytes of the tables the vector path reads (an opaque, caller-owned buffer).
#define CMATRIXSHAPER_TABLES_SIZE 8192

/// 1 when this CPU and OS run the vector path (AVX-512 F, BW and VBMI, with
/// the ZMM state enabled by the OS), else 0. Always 0 off x86-64.
int cmatrixshaper_available(void);

/// Fills `tables` (CMATRIXSHAPER_TABLES_SIZE bytes) from the scalar
/// kernel's `columns` (768 words) and `encode` (65,536 codes, code of sum
/// `s` = sRGB code of step `s - bias` clamped to 0...16383), and returns 1
/// when the vector path gives `encode[s]` for every 16-bit `s` (checked
/// here, exhaustively), else 0: the caller then keeps the scalar kernel.
int cmatrixshaper_prepare(void *tables, const uint64_t *columns, const uint8_t *encode, uint32_t bias);

/// How many of the nine column tables (channel × output lane) the vector
/// path looks up after `cmatrixshaper_prepare`: the others, whose matrix
/// entry is zero, hold one value and are added as a constant.
int cmatrixshaper_lookup_tables(const void *tables);

/// Converts the first `width / 64 * 64` RGB pixels of a row (`input` may
/// equal `output`) and returns how many it converted; the caller converts
/// the rest. Only after `cmatrixshaper_prepare` returned 1 and when
/// `cmatrixshaper_available()` is 1.
size_t cmatrixshaper_convert_rgb(const void *tables, const void *input, void *output, size_t width);

/// As `cmatrixshaper_convert_rgb`, for RGBA pixels (alpha copied).
size_t cmatrixshaper_convert_rgba(const void *tables, const void *input, void *output, size_t width);

#endif
