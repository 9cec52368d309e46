#ifndef CWEBP_SHIM_H
#define CWEBP_SHIM_H
// libwebp's version-checked entry points (WebPGetFeatures, WebPInitDecoderConfig,
// WebPDemux, WebPConfigInit, ...) are static inline functions in these headers,
// which Swift imports as they are.
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#include <webp/mux.h>
#endif
