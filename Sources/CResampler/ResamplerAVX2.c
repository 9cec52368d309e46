#include "CResampler.h"


// The clamps: min and max over a few rows or pixels. Plain loops the
// compiler vectorises for the baseline target; AVX2 below when available.
static void clampCombinedPortable(const float *const *rows, size_t count, size_t floats, float *out) {
    size_t padded = (floats + 7) / 8 * 8;
    for (size_t i = 0; i < padded; i++) {
        float low = rows[0][i], high = low;
        for (size_t k = 1; k < count; k++) {
            float v = rows[k][i];
            low = v < low ? v : low;
            high = v > high ? v : high;
        }
        float v = out[i];
        out[i] = v < low ? low : (v > high ? high : v);
    }
}

// A pixel's own samples and no more: past them lie the next pixels, whose
// windows start elsewhere (a grey row clamped three samples a pixel would
// clamp each pixel again to its left neighbour's window).
static void clampRowPortable(const float *line, const intptr_t *starts, const intptr_t *offsets, const intptr_t *counts,
                             size_t count, size_t channels, float *out) {
    for (size_t x = 0; x < count; x++) {
        const float *p = line + (starts[x] + offsets[x]) * (intptr_t)channels;
        for (size_t c = 0; c < channels; c++) {
            float low = p[c], high = low;
            for (intptr_t k = 1; k < counts[x]; k++) {
                float v = p[k * (intptr_t)channels + c];
                low = v < low ? v : low;
                high = v > high ? v : high;
            }
            float v = out[x * channels + c];
            out[x * channels + c] = v < low ? low : (v > high ? high : v);
        }
    }
}

// The conversions between bytes and floats, written once as always-inline
// bodies: the plain wrappers compile them for the baseline target, the
// AVX2 ones (below) for eight lanes a register. In C rather than Swift,
// whose generic SIMD integer/float conversions did not inline (a call per
// lane into the runtime: 7 % of a baseline JPEG thumbnail).
#define BODY static inline __attribute__((always_inline))

BODY void widenBody(const uint8_t *restrict bytes, size_t count, float *restrict out) {
    for (size_t i = 0; i < count; i++) out[i] = (float)bytes[i];
}

BODY void widenPremultipliedBody(const uint8_t *restrict bytes, size_t pixels, size_t channels, float *restrict out) {
    if (channels == 4) {
        for (size_t x = 0; x < pixels; x++) {
            const uint8_t *p = bytes + 4 * x;
            float alpha = (float)p[3], weight = alpha * (1.0f / 255.0f);
            out[4 * x] = (float)p[0] * weight;
            out[4 * x + 1] = (float)p[1] * weight;
            out[4 * x + 2] = (float)p[2] * weight;
            out[4 * x + 3] = alpha;
        }
    } else {
        for (size_t x = 0; x < pixels; x++) {
            float alpha = (float)bytes[2 * x + 1];
            out[2 * x] = (float)bytes[2 * x] * (alpha * (1.0f / 255.0f));
            out[2 * x + 1] = alpha;
        }
    }
}

// Rounded to nearest, clamped to 0...255 (NaN to 0): what the Swift loops'
// `byte(_:)` gives.
BODY uint8_t narrowOne(float value) {
    float rounded = value + 0.5f;
    rounded = rounded > 0.0f ? rounded : 0.0f;
    rounded = rounded < 255.0f ? rounded : 255.0f;
    return (uint8_t)(int32_t)rounded;
}

BODY void narrowBody(const float *restrict sums, size_t count, uint8_t *restrict out) {
    for (size_t i = 0; i < count; i++) out[i] = narrowOne(sums[i]);
}

BODY void narrowUnpremultipliedBody(const float *restrict sums, size_t pixels, size_t channels, uint8_t *restrict out) {
    for (size_t x = 0; x < pixels; x++) {
        const float *p = sums + channels * x;
        float alpha = p[channels - 1];
        // Colour sums were weighted by alpha/255: divide that back out.
        float unweight = alpha > 0.5f ? 255.0f / alpha : 0.0f;
        for (size_t c = 0; c + 1 < channels; c++) out[channels * x + c] = narrowOne(p[c] * unweight);
        out[channels * x + channels - 1] = narrowOne(alpha);
    }
}

static void widenPortable(const uint8_t *bytes, size_t count, float *out) { widenBody(bytes, count, out); }
static void widenPremultipliedPortable(const uint8_t *bytes, size_t pixels, size_t channels, float *out) {
    widenPremultipliedBody(bytes, pixels, channels, out);
}
static void narrowPortable(const float *sums, size_t count, uint8_t *out) { narrowBody(sums, count, out); }
static void narrowUnpremultipliedPortable(const float *sums, size_t pixels, size_t channels, uint8_t *out) {
    narrowUnpremultipliedBody(sums, pixels, channels, out);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

#include <cpuid.h>
#include <immintrin.h>

int cresampler_available(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_FMA) || !(c & bit_AVX)) return 0;
    // XCR0: SSE and AVX (YMM upper halves) state saved by the OS.
    unsigned low, high;
    __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    if ((low & 0x6) != 0x6) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & bit_AVX2) != 0;
}

#define VECTOR __attribute__((target("avx2,fma")))

// Four independent sums of 8 floats (32 floats a step) keep the FMA
// pipelines busy: one weight broadcast and one row pointer serve four
// registers. Then 8 at a time for the rest.
VECTOR void cresampler_combine(const float *const *rows, const float *weights, size_t taps, size_t floats, float *out) {
    size_t i = 0;
    for (; i + 32 <= floats; i += 32) {
        __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps(), c = _mm256_setzero_ps(), d = _mm256_setzero_ps();
        for (size_t k = 0; k < taps; k++) {
            const float *row = rows[k] + i;
            __m256 w = _mm256_broadcast_ss(weights + k);
            a = _mm256_fmadd_ps(_mm256_loadu_ps(row), w, a);
            b = _mm256_fmadd_ps(_mm256_loadu_ps(row + 8), w, b);
            c = _mm256_fmadd_ps(_mm256_loadu_ps(row + 16), w, c);
            d = _mm256_fmadd_ps(_mm256_loadu_ps(row + 24), w, d);
        }
        _mm256_storeu_ps(out + i, a);
        _mm256_storeu_ps(out + i + 8, b);
        _mm256_storeu_ps(out + i + 16, c);
        _mm256_storeu_ps(out + i + 24, d);
    }
    for (; i < floats; i += 8) {
        __m256 a = _mm256_setzero_ps();
        for (size_t k = 0; k < taps; k++) a = _mm256_fmadd_ps(_mm256_loadu_ps(rows[k] + i), _mm256_broadcast_ss(weights + k), a);
        _mm256_storeu_ps(out + i, a);
    }
}

// Two taps a register: the 4 floats of tap k in the low half, of tap k + 1
// in the high half, each half weighed by its own tap's weight.
VECTOR void cresampler_filter(const float *line, const float *weights, const intptr_t *starts, size_t taps, size_t count,
                              size_t channels, float *out) {
    for (size_t x = 0; x < count; x++) {
        const float *p = line + starts[x] * (intptr_t)channels;
        const float *w = weights + x * taps;
        __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
        size_t k = 0;
        for (; k + 4 <= taps; k += 4) {
            __m256 first = _mm256_loadu2_m128(p + channels, p);
            __m256 second = _mm256_loadu2_m128(p + 3 * channels, p + 2 * channels);
            __m256 w01 = _mm256_setr_m128(_mm_broadcast_ss(w), _mm_broadcast_ss(w + 1));
            __m256 w23 = _mm256_setr_m128(_mm_broadcast_ss(w + 2), _mm_broadcast_ss(w + 3));
            a = _mm256_fmadd_ps(first, w01, a);
            b = _mm256_fmadd_ps(second, w23, b);
            p += 4 * channels;
            w += 4;
        }
        for (; k + 2 <= taps; k += 2) {
            __m256 pair = _mm256_loadu2_m128(p + channels, p);
            a = _mm256_fmadd_ps(pair, _mm256_setr_m128(_mm_broadcast_ss(w), _mm_broadcast_ss(w + 1)), a);
            p += 2 * channels;
            w += 2;
        }
        __m256 sum = _mm256_add_ps(a, b);
        __m128 total = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
        if (k < taps) total = _mm_fmadd_ps(_mm_loadu_ps(p), _mm_broadcast_ss(w), total);
        _mm_storeu_ps(out + x * channels, total);
    }
}

VECTOR static void clampCombinedAVX2(const float *const *rows, size_t count, size_t floats, float *out) {
    for (size_t i = 0; i < floats; i += 8) {
        __m256 low = _mm256_loadu_ps(rows[0] + i), high = low;
        for (size_t k = 1; k < count; k++) {
            __m256 v = _mm256_loadu_ps(rows[k] + i);
            low = _mm256_min_ps(low, v);
            high = _mm256_max_ps(high, v);
        }
        _mm256_storeu_ps(out + i, _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(out + i), low), high));
    }
}

VECTOR static void clampRowAVX2(const float *line, const intptr_t *starts, const intptr_t *offsets, const intptr_t *counts,
                                size_t count, size_t channels, float *out) {
    // For 3 channels the fourth lane (the next pixel's red) is kept as it was.
    __m128 keep = channels == 4 ? _mm_setzero_ps() : _mm_castsi128_ps(_mm_setr_epi32(0, 0, 0, -1));
    for (size_t x = 0; x < count; x++) {
        const float *p = line + (starts[x] + offsets[x]) * (intptr_t)channels;
        __m128 low = _mm_loadu_ps(p), high = low;
        for (intptr_t k = 1; k < counts[x]; k++) {
            __m128 v = _mm_loadu_ps(p + k * (intptr_t)channels);
            low = _mm_min_ps(low, v);
            high = _mm_max_ps(high, v);
        }
        __m128 value = _mm_loadu_ps(out + x * channels);
        __m128 clamped = _mm_min_ps(_mm_max_ps(value, low), high);
        _mm_storeu_ps(out + x * channels, _mm_blendv_ps(clamped, value, keep));
    }
}

void cresampler_clamp_combined(const float *const *rows, size_t count, size_t floats, float *out, int vector) {
    if (vector) clampCombinedAVX2(rows, count, floats, out);
    else clampCombinedPortable(rows, count, floats, out);
}

void cresampler_clamp_row(const float *line, const intptr_t *starts, const intptr_t *offsets, const intptr_t *counts,
                          size_t count, size_t channels, float *out, int vector) {
    if (vector && channels >= 3) clampRowAVX2(line, starts, offsets, counts, count, channels, out);
    else clampRowPortable(line, starts, offsets, counts, count, channels, out);
}

VECTOR static void widenAVX2(const uint8_t *bytes, size_t count, float *out) { widenBody(bytes, count, out); }
VECTOR static void widenPremultipliedAVX2(const uint8_t *bytes, size_t pixels, size_t channels, float *out) {
    widenPremultipliedBody(bytes, pixels, channels, out);
}
VECTOR static void narrowAVX2(const float *sums, size_t count, uint8_t *out) { narrowBody(sums, count, out); }
VECTOR static void narrowUnpremultipliedAVX2(const float *sums, size_t pixels, size_t channels, uint8_t *out) {
    narrowUnpremultipliedBody(sums, pixels, channels, out);
}

void cresampler_widen(const uint8_t *bytes, size_t count, float *out, int vector) {
    if (vector) widenAVX2(bytes, count, out);
    else widenPortable(bytes, count, out);
}

void cresampler_widen_premultiplied(const uint8_t *bytes, size_t pixels, size_t channels, float *out, int vector) {
    if (vector) widenPremultipliedAVX2(bytes, pixels, channels, out);
    else widenPremultipliedPortable(bytes, pixels, channels, out);
}

void cresampler_narrow(const float *sums, size_t count, uint8_t *out, int vector) {
    if (vector) narrowAVX2(sums, count, out);
    else narrowPortable(sums, count, out);
}

void cresampler_narrow_unpremultiplied(const float *sums, size_t pixels, size_t channels, uint8_t *out, int vector) {
    if (vector) narrowUnpremultipliedAVX2(sums, pixels, channels, out);
    else narrowUnpremultipliedPortable(sums, pixels, channels, out);
}

#else

int cresampler_available(void) { return 0; }

void cresampler_clamp_combined(const float *const *rows, size_t count, size_t floats, float *out, int vector) {
    (void)vector;
    clampCombinedPortable(rows, count, floats, out);
}

void cresampler_clamp_row(const float *line, const intptr_t *starts, const intptr_t *offsets, const intptr_t *counts,
                          size_t count, size_t channels, float *out, int vector) {
    (void)vector;
    clampRowPortable(line, starts, offsets, counts, count, channels, out);
}

void cresampler_combine(const float *const *rows, const float *weights, size_t taps, size_t floats, float *out) {
    (void)rows; (void)weights; (void)taps; (void)floats; (void)out;
}

void cresampler_filter(const float *line, const float *weights, const intptr_t *starts, size_t taps, size_t count,
                       size_t channels, float *out) {
    (void)line; (void)weights; (void)starts; (void)taps; (void)count; (void)channels; (void)out;
}

void cresampler_widen(const uint8_t *bytes, size_t count, float *out, int vector) {
    (void)vector;
    widenPortable(bytes, count, out);
}

void cresampler_widen_premultiplied(const uint8_t *bytes, size_t pixels, size_t channels, float *out, int vector) {
    (void)vector;
    widenPremultipliedPortable(bytes, pixels, channels, out);
}

void cresampler_narrow(const float *sums, size_t count, uint8_t *out, int vector) {
    (void)vector;
    narrowPortable(sums, count, out);
}

void cresampler_narrow_unpremultiplied(const float *sums, size_t pixels, size_t channels, uint8_t *out, int vector) {
    (void)vector;
    narrowUnpremultipliedPortable(sums, pixels, channels, out);
}

#endif
