#include "CMatrixShaper.h"

#include <string.h>

// The scalar kernel, per pixel: three words from `columns` (a channel's
// linear value times its matrix column, three 16-bit lanes) added, and each
// lane's sum looked up in the 64 KiB `encode` table. Its cost is the six
// table loads a pixel (the load ports, not memory: a cache-cold buffer
// converts as fast as a hot one), and AVX-512 gathers are slower still on
// the AMD parts measured. So here no table is read per pixel:
// - each 256-entry byte table (the low and high bytes of each lane of
//   `columns`) lives in four ZMM registers' worth of bytes and is read 64
//   pixels at a time by two VPERMI2B (128 entries each) and a blend on bit 7;
// - the 64 KiB `encode` table is replaced by arithmetic on its structure:
//   the sRGB code of step x (0...16383) is at most one above
//   base[x >> 6] + (x & 63) * slope[x >> 6] / 1024, and exactly one above
//   when x reaches the first step of the next code (up[estimate]), so four
//   256-entry byte tables more. `prepare` picks each slope and checks the
//   whole thing against `encode` for every 16-bit sum.

typedef struct {
    uint8_t columns[3][3][2][256]; // [channel][lane][low byte, high byte][value]
    uint8_t base[256];             // code of the first step of each 64-step segment
    uint8_t slope[256];            // codes per step, in 1/1024, within each segment
    uint8_t upLow[256];            // first step whose code exceeds e (low byte) ...
    uint8_t upHigh[256];           // ... and its high byte
    // Byte permutations between 192 interleaved RGB bytes and three planes:
    uint8_t split[3][2][64];       // plane c from bytes 0-127 (VPERMT2B), then from 128-191 (VPERMB)
    uint64_t splitMask[3];         // which bytes of plane c come from 128-191
    uint8_t merge[3][2][64];       // output chunk k from the red and green planes, then from blue
    uint64_t mergeMask[3];         // which bytes of chunk k are blue
    // and between 16 RGBA pixels and their R, G, B, A in four 128-bit lanes.
    uint8_t toLanes[64];
    uint8_t fromLanes[64];
    // Tables whose matrix entry is zero (Adobe RGB → sRGB has four) hold
    // one value: their sum per lane is added without a lookup.
    uint16_t constantSum[3];       // [lane]: the sum of the constant tables
    uint8_t varies[3][3];          // [lane][channel]: 1 when the table needs a lookup
    uint32_t bias;
} Tables;

_Static_assert(sizeof(Tables) <= CMATRIXSHAPER_TABLES_SIZE, "CMATRIXSHAPER_TABLES_SIZE");

/// The vector path's code for a 16-bit sum, computed as the vector code does.
static unsigned encodeLikeVector(const Tables *t, unsigned sum) {
    unsigned x = sum > t->bias ? sum - t->bias : 0;
    if (x > 16383) x = 16383;
    unsigned segment = x >> 6;
    unsigned estimate = t->base[segment] + (((x & 63) * t->slope[segment]) >> 10);
    if (estimate > 255) return 256; // the vector code saturates; never equal to a code
    unsigned up = t->upLow[estimate] | (unsigned)t->upHigh[estimate] << 8;
    return estimate + (x >= up);
}

int cmatrixshaper_prepare(void *tables, const uint64_t *columns, const uint8_t *encode, uint32_t bias) {
    Tables *t = tables;
    memset(t, 0, sizeof *t);
    if (bias + 16383 > 65535) return 0;
    t->bias = bias;
    for (int channel = 0; channel < 3; channel++) {
        for (int lane = 0; lane < 3; lane++) {
            for (int value = 0; value < 256; value++) {
                unsigned word = (unsigned)(columns[channel * 256 + value] >> (16 * lane)) & 0xFFFF;
                t->columns[channel][lane][0][value] = (uint8_t)(word & 0xFF);
                t->columns[channel][lane][1][value] = (uint8_t)(word >> 8);
            }
        }
    }
    for (int channel = 0; channel < 3; channel++) {
        for (int pixel = 0; pixel < 64; pixel++) {
            int byte = 3 * pixel + channel;
            t->split[channel][0][pixel] = (uint8_t)(byte & 127);
            t->split[channel][1][pixel] = (uint8_t)((byte - 128) & 63);
            if (byte >= 128) t->splitMask[channel] |= 1ULL << pixel;
        }
    }
    for (int chunk = 0; chunk < 3; chunk++) {
        for (int offset = 0; offset < 64; offset++) {
            int byte = 64 * chunk + offset, pixel = byte / 3, channel = byte % 3;
            if (channel == 2) {
                t->merge[chunk][1][offset] = (uint8_t)pixel;
                t->mergeMask[chunk] |= 1ULL << offset;
            } else {
                t->merge[chunk][0][offset] = (uint8_t)(pixel | (channel == 1 ? 64 : 0));
            }
        }
    }
    for (int lane = 0; lane < 4; lane++) {
        for (int pixel = 0; pixel < 16; pixel++) {
            t->toLanes[lane * 16 + pixel] = (uint8_t)(4 * pixel + lane);
            t->fromLanes[4 * pixel + lane] = (uint8_t)(lane * 16 + pixel);
        }
    }
    for (int lane = 0; lane < 3; lane++) {
        unsigned constantSum = 0;
        for (int channel = 0; channel < 3; channel++) {
            int varies = 0;
            for (int value = 1; value < 256; value++) {
                varies |= t->columns[channel][lane][0][value] != t->columns[channel][lane][0][0];
                varies |= t->columns[channel][lane][1][value] != t->columns[channel][lane][1][0];
            }
            t->varies[lane][channel] = (uint8_t)varies;
            if (!varies) constantSum += t->columns[channel][lane][0][0] | (unsigned)t->columns[channel][lane][1][0] << 8;
        }
        t->constantSum[lane] = (uint16_t)constantSum; // lanes add modulo 2^16, as in the scalar kernel
    }
    const uint8_t *code = encode + bias; // code[x], x = 0...16383
    // up[e]: the first step whose code is above e (65535: none, as x < 16384).
    unsigned step = 0;
    for (unsigned e = 0; e < 256; e++) {
        while (step < 16384 && code[step] <= e) step++;
        unsigned up = step < 16384 ? step : 0xFFFF;
        t->upLow[e] = (uint8_t)(up & 0xFF);
        t->upHigh[e] = (uint8_t)(up >> 8);
    }
    // Each segment's slope: the smallest whose estimate is the code or one below, at every step.
    for (unsigned segment = 0; segment < 256; segment++) {
        unsigned first = code[segment * 64];
        int found = -1;
        for (int slope = 0; slope < 256 && found < 0; slope++) {
            int fits = 1;
            for (unsigned offset = 0; offset < 64 && fits; offset++) {
                int estimate = (int)first + (int)((offset * (unsigned)slope) >> 10);
                int below = (int)code[segment * 64 + offset] - estimate;
                fits = estimate <= 255 && (below == 0 || below == 1);
            }
            if (fits) found = slope;
        }
        if (found < 0) return 0;
        t->base[segment] = (uint8_t)first;
        t->slope[segment] = (uint8_t)found;
    }
    for (unsigned sum = 0; sum < 65536; sum++) {
        if (encodeLikeVector(t, sum) != encode[sum]) return 0;
    }
    return 1;
}

int cmatrixshaper_lookup_tables(const void *tables) {
    const Tables *t = tables;
    int count = 0;
    for (int lane = 0; lane < 3; lane++) {
        for (int channel = 0; channel < 3; channel++) count += t->varies[lane][channel];
    }
    return count;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

#include <cpuid.h>
#include <immintrin.h>

int cmatrixshaper_available(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return 0;
    // XCR0: SSE, AVX, opmask, ZMM0-15 upper halves and ZMM16-31 saved by the OS.
    unsigned low, high;
    __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    if ((low & 0xE6) != 0xE6) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & bit_AVX512F) && (b & bit_AVX512BW) && (c & bit_AVX512VBMI);
}

#define VECTOR __attribute__((target("avx512f,avx512bw,avx512vbmi")))

/// 64 lookups in a 256-entry byte table; `high` is bit 7 of each index.
VECTOR static inline __m512i lookup(const uint8_t *table, __m512i index, __mmask64 high) {
    __m512i low = _mm512_permutex2var_epi8(_mm512_loadu_si512(table), index, _mm512_loadu_si512(table + 64));
    __m512i top = _mm512_permutex2var_epi8(_mm512_loadu_si512(table + 128), index, _mm512_loadu_si512(table + 192));
    return _mm512_mask_blend_epi8(high, low, top);
}

/// The codes of 64 sums, given as 16-bit lanes in unpack order (`first`
/// the unpacklo half, `second` the unpackhi half), as 64 bytes in pixel order
/// (PACKUSWB undoes the unpacks).
VECTOR static inline __m512i encode64(const Tables *t, __m512i first, __m512i second) {
    const __m512i bias = _mm512_set1_epi16((short)t->bias), last = _mm512_set1_epi16(16383);
    const __m512i offsetMask = _mm512_set1_epi16(63), zero = _mm512_setzero_si512(), one = _mm512_set1_epi16(1);
    __m512i x0 = _mm512_min_epu16(_mm512_subs_epu16(first, bias), last);
    __m512i x1 = _mm512_min_epu16(_mm512_subs_epu16(second, bias), last);
    __m512i segment = _mm512_packus_epi16(_mm512_srli_epi16(x0, 6), _mm512_srli_epi16(x1, 6));
    __mmask64 segmentHigh = _mm512_movepi8_mask(segment);
    __m512i base = lookup(t->base, segment, segmentHigh), slope = lookup(t->slope, segment, segmentHigh);
    __m512i rise0 = _mm512_srli_epi16(_mm512_mullo_epi16(_mm512_and_si512(x0, offsetMask), _mm512_unpacklo_epi8(slope, zero)), 10);
    __m512i rise1 = _mm512_srli_epi16(_mm512_mullo_epi16(_mm512_and_si512(x1, offsetMask), _mm512_unpackhi_epi8(slope, zero)), 10);
    __m512i estimate = _mm512_packus_epi16(
        _mm512_add_epi16(_mm512_unpacklo_epi8(base, zero), rise0), _mm512_add_epi16(_mm512_unpackhi_epi8(base, zero), rise1)
    );
    __mmask64 estimateHigh = _mm512_movepi8_mask(estimate);
    __m512i upLow = lookup(t->upLow, estimate, estimateHigh), upHigh = lookup(t->upHigh, estimate, estimateHigh);
    __mmask32 reached0 = _mm512_cmpge_epu16_mask(x0, _mm512_unpacklo_epi8(upLow, upHigh));
    __mmask32 reached1 = _mm512_cmpge_epu16_mask(x1, _mm512_unpackhi_epi8(upLow, upHigh));
    __m512i step = _mm512_packus_epi16(_mm512_maskz_mov_epi16(reached0, one), _mm512_maskz_mov_epi16(reached1, one));
    return _mm512_add_epi8(estimate, step);
}

/// Planes of 64 red, green and blue values → planes of their sRGB codes.
VECTOR static inline void convertPlanes(const Tables *t, const __m512i planes[3], __m512i codes[3]) {
    __mmask64 high[3];
    for (int channel = 0; channel < 3; channel++) high[channel] = _mm512_movepi8_mask(planes[channel]);
    for (int lane = 0; lane < 3; lane++) {
        __m512i first = _mm512_set1_epi16((short)t->constantSum[lane]), second = first;
        for (int channel = 0; channel < 3; channel++) {
            if (!t->varies[lane][channel]) continue;
            __m512i low = lookup(t->columns[channel][lane][0], planes[channel], high[channel]);
            __m512i top = lookup(t->columns[channel][lane][1], planes[channel], high[channel]);
            first = _mm512_add_epi16(first, _mm512_unpacklo_epi8(low, top));
            second = _mm512_add_epi16(second, _mm512_unpackhi_epi8(low, top));
        }
        codes[lane] = encode64(t, first, second);
    }
}

VECTOR static size_t convertRGB(const Tables *restrict t, const uint8_t *input, uint8_t *output, size_t width) {
    size_t blocks = width / 64;
    for (size_t block = 0; block < blocks; block++) {
        __m512i a = _mm512_loadu_si512(input), b = _mm512_loadu_si512(input + 64), c = _mm512_loadu_si512(input + 128);
        __m512i planes[3], codes[3];
        for (int channel = 0; channel < 3; channel++) {
            __m512i fromAB = _mm512_permutex2var_epi8(a, _mm512_loadu_si512(t->split[channel][0]), b);
            planes[channel] = _mm512_mask_permutexvar_epi8(fromAB, t->splitMask[channel], _mm512_loadu_si512(t->split[channel][1]), c);
        }
        convertPlanes(t, planes, codes);
        for (int chunk = 0; chunk < 3; chunk++) {
            __m512i redGreen = _mm512_permutex2var_epi8(codes[0], _mm512_loadu_si512(t->merge[chunk][0]), codes[1]);
            __m512i bytes = _mm512_mask_permutexvar_epi8(redGreen, t->mergeMask[chunk], _mm512_loadu_si512(t->merge[chunk][1]), codes[2]);
            _mm512_storeu_si512(output + 64 * chunk, bytes);
        }
        input += 192;
        output += 192;
    }
    return blocks * 64;
}

VECTOR static size_t convertRGBA(const Tables *restrict t, const uint8_t *input, uint8_t *output, size_t width) {
    // Within each 16-pixel register: R, G, B and A of its pixels in its four
    // 128-bit lanes; a 4×4 transpose of lanes then gives planes. The
    // transpose is its own inverse, and `fromLanes` undoes `toLanes`.
    const __m512i toLanes = _mm512_loadu_si512(t->toLanes), fromLanes = _mm512_loadu_si512(t->fromLanes);
    size_t blocks = width / 64;
    for (size_t block = 0; block < blocks; block++) {
        __m512i y0 = _mm512_permutexvar_epi8(toLanes, _mm512_loadu_si512(input));
        __m512i y1 = _mm512_permutexvar_epi8(toLanes, _mm512_loadu_si512(input + 64));
        __m512i y2 = _mm512_permutexvar_epi8(toLanes, _mm512_loadu_si512(input + 128));
        __m512i y3 = _mm512_permutexvar_epi8(toLanes, _mm512_loadu_si512(input + 192));
        __m512i t0 = _mm512_shuffle_i64x2(y0, y1, 0x44), t1 = _mm512_shuffle_i64x2(y2, y3, 0x44);
        __m512i t2 = _mm512_shuffle_i64x2(y0, y1, 0xEE), t3 = _mm512_shuffle_i64x2(y2, y3, 0xEE);
        __m512i planes[3] = {_mm512_shuffle_i64x2(t0, t1, 0x88), _mm512_shuffle_i64x2(t0, t1, 0xDD), _mm512_shuffle_i64x2(t2, t3, 0x88)};
        __m512i alpha = _mm512_shuffle_i64x2(t2, t3, 0xDD);
        __m512i codes[3];
        convertPlanes(t, planes, codes);
        __m512i u0 = _mm512_shuffle_i64x2(codes[0], codes[1], 0x44), u1 = _mm512_shuffle_i64x2(codes[2], alpha, 0x44);
        __m512i u2 = _mm512_shuffle_i64x2(codes[0], codes[1], 0xEE), u3 = _mm512_shuffle_i64x2(codes[2], alpha, 0xEE);
        _mm512_storeu_si512(output, _mm512_permutexvar_epi8(fromLanes, _mm512_shuffle_i64x2(u0, u1, 0x88)));
        _mm512_storeu_si512(output + 64, _mm512_permutexvar_epi8(fromLanes, _mm512_shuffle_i64x2(u0, u1, 0xDD)));
        _mm512_storeu_si512(output + 128, _mm512_permutexvar_epi8(fromLanes, _mm512_shuffle_i64x2(u2, u3, 0x88)));
        _mm512_storeu_si512(output + 192, _mm512_permutexvar_epi8(fromLanes, _mm512_shuffle_i64x2(u2, u3, 0xDD)));
        input += 256;
        output += 256;
    }
    return blocks * 64;
}

size_t cmatrixshaper_convert_rgb(const void *tables, const void *input, void *output, size_t width) {
    return convertRGB(tables, input, output, width);
}

size_t cmatrixshaper_convert_rgba(const void *tables, const void *input, void *output, size_t width) {
    return convertRGBA(tables, input, output, width);
}

#else

int cmatrixshaper_available(void) { return 0; }

size_t cmatrixshaper_convert_rgb(const void *tables, const void *input, void *output, size_t width) {
    (void)tables; (void)input; (void)output; (void)width;
    return 0;
}

size_t cmatrixshaper_convert_rgba(const void *tables, const void *input, void *output, size_t width) {
    (void)tables; (void)input; (void)output; (void)width;
    return 0;
}

#endif
