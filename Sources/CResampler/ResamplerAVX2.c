#include "CResampler.h"

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

#else

int cresampler_available(void) { return 0; }

void cresampler_combine(const float *const *rows, const float *weights, size_t taps, size_t floats, float *out) {
    (void)rows; (void)weights; (void)taps; (void)floats; (void)out;
}

void cresampler_filter(const float *line, const float *weights, const intptr_t *starts, size_t taps, size_t count,
                       size_t channels, float *out) {
    (void)line; (void)weights; (void)starts; (void)taps; (void)count; (void)channels; (void)out;
}

#endif
