#ifndef CLCMS2_SHIM_H
#define CLCMS2_SHIM_H
#include <lcms2.h>

// lcms2's pixel formats and flags are function-like macro expressions that
// Swift does not import; these typed wrappers give them names.

static inline cmsUInt32Number CLcms2_TYPE_RGB_8(void) { return TYPE_RGB_8; }
static inline cmsUInt32Number CLcms2_TYPE_RGBA_8(void) { return TYPE_RGBA_8; }
static inline cmsUInt32Number CLcms2_TYPE_GRAY_8(void) { return TYPE_GRAY_8; }
static inline cmsUInt32Number CLcms2_TYPE_GRAYA_8(void) { return TYPE_GRAYA_8; }
/// CMYK stored inverted (255 = no ink), as Adobe writes CMYK JPEGs.
static inline cmsUInt32Number CLcms2_TYPE_CMYK_8_REV(void) { return TYPE_CMYK_8_REV; }
/// Three 32-bit floats a pixel, 0…1 (what the fast path samples lcms2 with).
static inline cmsUInt32Number CLcms2_TYPE_RGB_FLT(void) { return TYPE_RGB_FLT; }

static inline cmsUInt32Number CLcms2_FLAGS_NOCACHE(void) { return cmsFLAGS_NOCACHE; }
static inline cmsUInt32Number CLcms2_FLAGS_COPY_ALPHA(void) { return cmsFLAGS_COPY_ALPHA; }
static inline cmsUInt32Number CLcms2_FLAGS_NOOPTIMIZE(void) { return cmsFLAGS_NOOPTIMIZE; }

#endif
