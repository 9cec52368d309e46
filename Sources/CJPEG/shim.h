#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H

// libjpeg's scanline API (libjpeg-turbo's libjpeg.so.62), for decodes that
// work on each batch of rows while it is still in cache. libjpeg reports a
// fatal error by calling error_exit, which must not return: the usual way
// is a longjmp back to a setjmp. Every call below that can reach
// error_exit sets its own jump point first, so the jump only ever unwinds
// libjpeg's C frames and this header's wrapper, never a Swift frame; the
// wrapper then returns a failure code that Swift turns into a typed error.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

/// The most progressive scans a decode may read (TurboJPEG's TJFLAG_LIMITSCANS bound).
#define CJPEG_MAX_SCANS 500

typedef struct CJPEG_Decoder {
    struct jpeg_decompress_struct info;
    struct jpeg_error_mgr errors;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    /// 1 once a warning was recorded in `warning`.
    int hasWarning;
    /// The fatal error's message, after a call returned a failure.
    char message[JMSG_LENGTH_MAX];
    /// libjpeg's first warning (data it decoded anyway, e.g. truncated).
    char warning[JMSG_LENGTH_MAX];
} CJPEG_Decoder;

static inline void CJPEG_errorExit(j_common_ptr info) {
    CJPEG_Decoder *decoder = (CJPEG_Decoder *)info->client_data;
    (*info->err->format_message)(info, decoder->message);
    longjmp(decoder->jump, 1);
}

static inline void CJPEG_emitMessage(j_common_ptr info, int level) {
    // Warnings only (level < 0); trace messages are dropped. The first
    // warning's text is kept, as TurboJPEG does.
    if (level >= 0) return;
    CJPEG_Decoder *decoder = (CJPEG_Decoder *)info->client_data;
    if (!decoder->hasWarning) {
        (*info->err->format_message)(info, decoder->warning);
        decoder->hasWarning = 1;
    }
    info->err->num_warnings++;
}

static inline void CJPEG_outputMessage(j_common_ptr info) {
    (void)info; // never print to stderr
}

static inline void CJPEG_checkScans(j_common_ptr info) {
    CJPEG_Decoder *decoder = (CJPEG_Decoder *)info->client_data;
    if (decoder->info.input_scan_number > CJPEG_MAX_SCANS) {
        snprintf(decoder->message, JMSG_LENGTH_MAX,
                 "Progressive JPEG image has more than %d scans", CJPEG_MAX_SCANS);
        longjmp(decoder->jump, 1);
    }
}

/// A decompressor with the error handling above, or NULL when out of memory.
static inline CJPEG_Decoder *CJPEG_create(void) {
    CJPEG_Decoder *decoder = (CJPEG_Decoder *)calloc(1, sizeof(CJPEG_Decoder));
    if (decoder == NULL) return NULL;
    decoder->info.err = jpeg_std_error(&decoder->errors);
    decoder->errors.error_exit = CJPEG_errorExit;
    decoder->errors.emit_message = CJPEG_emitMessage;
    decoder->errors.output_message = CJPEG_outputMessage;
    decoder->progress.progress_monitor = CJPEG_checkScans;
    // Set before jpeg_create_decompress, which may already fail (and keeps it).
    decoder->info.client_data = decoder;
    if (setjmp(decoder->jump)) {
        jpeg_destroy_decompress(&decoder->info);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->info);
    // jpeg_create_decompress clears the struct but for `err` and
    // `client_data`: the progress monitor is set after it.
    decoder->info.progress = &decoder->progress;
    return decoder;
}

static inline void CJPEG_destroy(CJPEG_Decoder *decoder) {
    jpeg_destroy_decompress(&decoder->info);
    free(decoder);
}

/// Reads the header of the `size` bytes at `data` (which must outlive the
/// decode) and starts decompressing to RGB at `scaleNum/scaleDenom`.
/// Returns 1, or 0 with `message` set.
static inline int CJPEG_startRGB(CJPEG_Decoder *decoder, const unsigned char *data, unsigned long size,
                                 unsigned int scaleNum, unsigned int scaleDenom) {
    if (setjmp(decoder->jump)) return 0;
    jpeg_mem_src(&decoder->info, data, size);
    if (jpeg_read_header(&decoder->info, TRUE) != JPEG_HEADER_OK) {
        snprintf(decoder->message, JMSG_LENGTH_MAX, "no image in the data");
        return 0;
    }
    decoder->info.out_color_space = JCS_EXT_RGB;
    decoder->info.scale_num = scaleNum;
    decoder->info.scale_denom = scaleDenom;
    jpeg_start_decompress(&decoder->info);
    return 1;
}

/// Decodes the next batch of rows (libjpeg returns at most one row group a
/// call) into `first`, `first + pitch`, … (at most 64 rows). Returns the
/// number of rows written, or -1 with `message` set.
static inline int CJPEG_readRows(CJPEG_Decoder *decoder, unsigned char *first, size_t pitch, unsigned int maxRows) {
    JSAMPROW rows[64];
    if (maxRows > 64) maxRows = 64;
    for (unsigned int row = 0; row < maxRows; row++) rows[row] = first + row * pitch;
    if (setjmp(decoder->jump)) return -1;
    return (int)jpeg_read_scanlines(&decoder->info, rows, maxRows);
}

/// Reads the rest of the data up to EOI. Returns 1, or 0 with `message` set.
static inline int CJPEG_finish(CJPEG_Decoder *decoder) {
    if (setjmp(decoder->jump)) return 0;
    jpeg_finish_decompress(&decoder->info);
    return 1;
}

#endif
