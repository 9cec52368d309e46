#ifndef CRESAMPLER_H
#define CRESAMPLER_H

#include <stddef.h>
#include <stdint.h>

// The AVX2/FMA loops of AsyncWebImage's SeparableResampler: the same sums
// as its Swift loops (one multiply-add per tap, taps in order), eight
// floats a register. The package builds for baseline x86-64, so these are
// compiled for AVX2 and FMA function by function and chosen at run time.

/// 1 when this CPU and OS run the AVX2/FMA loops (the YMM state enabled by
/// the OS), else 0. Always 0 off x86-64.
int cresampler_available(void);

/// The vertical pass: `out[i] = sum over k < taps of rows[k][i] * weights[k]`
/// for i below `floats` rounded up to a multiple of 8 (each row and `out`
/// must hold that many floats).
void cresampler_combine(const float *const *rows, const float *weights, size_t taps, size_t floats, float *out);

/// The horizontal pass over pixels of 3 or 4 floats (`channels`): output
/// pixel x is the sum over k < taps of the 4 floats at
/// `line + (starts[x] + k) * channels` times `weights[x * taps + k]`,
/// stored as 4 floats at `out + x * channels` (for 3 channels the fourth
/// float is overwritten by the next pixel or lands in slack: `line` needs 4
/// floats of slack past its last pixel, `out` 1).
void cresampler_filter(const float *line, const float *weights, const intptr_t *starts, size_t taps, size_t count,
                       size_t channels, float *out);

/// Anti-ringing of the vertical pass: clamps `out[i]` to the range of
/// `rows[k][i]` over k < count, for i below `floats` rounded up to a
/// multiple of 8 (as `cresampler_combine` reads them). With `vector` (only
/// when `cresampler_available()`), in AVX2; else plain loops, any CPU.
void cresampler_clamp_combined(const float *const *rows, size_t count, size_t floats, float *out, int vector);

/// Anti-ringing of the horizontal pass over pixels of `channels` floats:
/// clamps the `channels` floats of output pixel x, each to the range of
/// that channel over the `counts[x]` pixels from
/// `line + (starts[x] + offsets[x]) * channels` (for 3 channels the AVX2
/// loop loads a fourth float, the next pixel's, and keeps it as it was).
/// `vector` as for `cresampler_clamp_combined`; 1 and 2 channels go to the
/// plain loops whatever it says.
void cresampler_clamp_row(const float *line, const intptr_t *starts, const intptr_t *offsets, const intptr_t *counts,
                          size_t count, size_t channels, float *out, int vector);

/// Bytes to floats: `out[i] = bytes[i]` for i below `count`. With `vector`
/// (only when `cresampler_available()`), compiled for AVX2; else for the
/// baseline target. The same for the three below.
void cresampler_widen(const uint8_t *bytes, size_t count, float *out, int vector);

/// Pixels of `channels` (2 or 4) bytes, alpha last, to floats with the
/// colour premultiplied: colour × alpha / 255, alpha as it is (0...255).
void cresampler_widen_premultiplied(const uint8_t *bytes, size_t pixels, size_t channels, float *out, int vector);

/// Floats to bytes: each rounded to the nearest integer and clamped to
/// 0...255 (NaN gives 0).
void cresampler_narrow(const float *sums, size_t count, uint8_t *out, int vector);

/// Premultiplied pixels of `channels` (2 or 4) floats, alpha last, to
/// bytes: colour × 255 / alpha (0 where alpha rounds to 0), each rounded
/// and clamped as by `cresampler_narrow`.
void cresampler_narrow_unpremultiplied(const float *sums, size_t pixels, size_t channels, uint8_t *out, int vector);

#endif
