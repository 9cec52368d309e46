#ifndef ASYNCWEBIMAGE_CTIFF_SHIM_H
#define ASYNCWEBIMAGE_CTIFF_SHIM_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tiffio.h>

/// A TIFF file in memory, read through libtiff's client callbacks (and
/// mapped: libtiff then reads strips and tiles in place, without copies).
typedef struct {
    const unsigned char *bytes;
    uint64_t size;
    uint64_t offset;
} CTiffMemory;

/// The first error libtiff reported for one handle (libtiff's global
/// handlers would print to stderr and are process-wide).
typedef struct {
    char message[512];
    int hasError;
    /// Set when libtiff warned that reading a tag ran past the data (it
    /// then ignores the tag and goes on, with a page that is not the file's).
    int tagReadPastData;
} CTiffErrors;

static inline tmsize_t CTiff_read(thandle_t handle, void *buffer, tmsize_t count) {
    CTiffMemory *memory = (CTiffMemory *)handle;
    if (count <= 0 || memory->offset >= memory->size) return 0;
    uint64_t available = memory->size - memory->offset;
    uint64_t n = (uint64_t)count < available ? (uint64_t)count : available;
    memcpy(buffer, memory->bytes + memory->offset, (size_t)n);
    memory->offset += n;
    return (tmsize_t)n;
}

static inline tmsize_t CTiff_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle; (void)buffer; (void)count;
    return 0;
}

static inline toff_t CTiff_seek(thandle_t handle, toff_t offset, int whence) {
    CTiffMemory *memory = (CTiffMemory *)handle;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? memory->offset : memory->size;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    memory->offset = base + offset;
    return memory->offset;
}

static inline int CTiff_close(thandle_t handle) { (void)handle; return 0; }

static inline toff_t CTiff_size(thandle_t handle) { return ((CTiffMemory *)handle)->size; }

static inline int CTiff_map(thandle_t handle, void **base, toff_t *size) {
    CTiffMemory *memory = (CTiffMemory *)handle;
    *base = (void *)memory->bytes;
    *size = memory->size;
    return 1;
}

static inline void CTiff_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

static inline int CTiff_recordError(TIFF *tiff, void *user, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    CTiffErrors *errors = (CTiffErrors *)user;
    if (errors && !errors->hasError) {
        int prefix = snprintf(errors->message, sizeof errors->message, "%s: ", module ? module : "libtiff");
        if (prefix < 0 || prefix >= (int)sizeof errors->message) prefix = 0;
        vsnprintf(errors->message + prefix, sizeof errors->message - (size_t)prefix, format, arguments);
        errors->hasError = 1;
    }
    return 1;
}

static inline int CTiff_recordWarning(TIFF *tiff, void *user, const char *module, const char *format, va_list arguments) {
    (void)tiff; (void)module;
    CTiffErrors *errors = (CTiffErrors *)user;
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    if (errors && strstr(message, "IO error")) errors->tagReadPastData = 1;
    return 1;
}

/// Opens `memory` for reading with errors recorded in `errors`, warnings
/// dropped (a tag read past the data noted), and no single allocation of libtiff's over `maxSingleAllocation`
/// bytes (0: libtiff's default, none).
static inline TIFF *CTiff_openMemory(CTiffMemory *memory, CTiffErrors *errors, tmsize_t maxSingleAllocation) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, CTiff_recordError, errors);
    TIFFOpenOptionsSetWarningHandlerExtR(options, CTiff_recordWarning, errors);
    if (maxSingleAllocation > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, maxSingleAllocation);
    TIFF *tiff = TIFFClientOpenExt("memory", "rm", (thandle_t)memory, CTiff_read, CTiff_write, CTiff_seek,
                                   CTiff_close, CTiff_size, CTiff_map, CTiff_unmap, options);
    TIFFOpenOptionsFree(options);
    return tiff;
}

/// TIFFGetField for one uint16 tag; 0 when absent.
static inline int CTiff_getUInt16(TIFF *tiff, uint32_t tag, uint16_t *value) { return TIFFGetField(tiff, tag, value); }
/// TIFFGetField for one uint32 tag; 0 when absent.
static inline int CTiff_getUInt32(TIFF *tiff, uint32_t tag, uint32_t *value) { return TIFFGetField(tiff, tag, value); }
/// TIFFGetFieldDefaulted for one uint16 tag.
static inline int CTiff_getUInt16Defaulted(TIFF *tiff, uint32_t tag, uint16_t *value) { return TIFFGetFieldDefaulted(tiff, tag, value); }
/// TIFFGetFieldDefaulted for one uint32 tag.
static inline int CTiff_getUInt32Defaulted(TIFF *tiff, uint32_t tag, uint32_t *value) { return TIFFGetFieldDefaulted(tiff, tag, value); }
/// The colour map's three 16-bit arrays (2^bits entries each).
static inline int CTiff_getColorMap(TIFF *tiff, uint16_t **red, uint16_t **green, uint16_t **blue) {
    return TIFFGetField(tiff, TIFFTAG_COLORMAP, red, green, blue);
}
/// The extra samples' count and kinds.
static inline int CTiff_getExtraSamples(TIFF *tiff, uint16_t *count, uint16_t **kinds) {
    return TIFFGetFieldDefaulted(tiff, TIFFTAG_EXTRASAMPLES, count, kinds);
}
/// The embedded ICC profile.
static inline int CTiff_getICCProfile(TIFF *tiff, uint32_t *length, void **bytes) {
    return TIFFGetField(tiff, TIFFTAG_ICCPROFILE, length, bytes);
}
/// The SubIFD offsets.
static inline int CTiff_getSubIFDs(TIFF *tiff, uint16_t *count, uint64_t **offsets) {
    return TIFFGetField(tiff, TIFFTAG_SUBIFD, count, offsets);
}

#endif
