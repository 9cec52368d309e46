#ifndef ASYNCWEBIMAGE_CRSVG_SHIM_H
#define ASYNCWEBIMAGE_CRSVG_SHIM_H

// The few librsvg 2.52+ and cairo functions the SVG coder calls, declared
// here rather than through <librsvg/rsvg.h>: that header needs GLib's,
// GdkPixbuf's and cairo's include directories, which only pkg-config
// knows, and librsvg-2.0.pc's flags carry -pthread, which SwiftPM rejects
// as a prohibited flag (a warning on every build). These are C ABI
// declarations of librsvg2-dev's and libcairo2-dev's stable API, with
// opaque handles; the library is linked through the module map.

#include <stddef.h>
#include <stdint.h>

typedef struct _RsvgHandle RsvgHandle;
typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;

typedef struct {
    uint32_t domain;
    int code;
    char *message;
} CRsvgError;

typedef struct {
    double x;
    double y;
    double width;
    double height;
} CRsvgRectangle;

typedef struct {
    double length;
    int unit;
} CRsvgLength;

/// RSVG_UNIT_PERCENT, the unit of a width or height that is a percentage.
#define CRSVG_UNIT_PERCENT 0
/// CAIRO_FORMAT_ARGB32: premultiplied, native-endian 32-bit pixels.
#define CRSVG_CAIRO_FORMAT_ARGB32 0

extern RsvgHandle *rsvg_handle_new_from_data(const uint8_t *data, size_t data_len, CRsvgError **error);
extern void rsvg_handle_set_dpi(RsvgHandle *handle, double dpi);
extern int rsvg_handle_get_intrinsic_size_in_pixels(RsvgHandle *handle, double *out_width, double *out_height);
extern void rsvg_handle_get_intrinsic_dimensions(RsvgHandle *handle, int *out_has_width, CRsvgLength *out_width,
                                                 int *out_has_height, CRsvgLength *out_height, int *out_has_viewbox,
                                                 CRsvgRectangle *out_viewbox);
extern int rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const CRsvgRectangle *viewport, CRsvgError **error);

extern void g_object_unref(void *object);
extern void g_error_free(CRsvgError *error);

extern cairo_surface_t *cairo_image_surface_create(int format, int width, int height);
extern unsigned char *cairo_image_surface_get_data(cairo_surface_t *surface);
extern int cairo_image_surface_get_stride(cairo_surface_t *surface);
extern int cairo_surface_status(cairo_surface_t *surface);
extern void cairo_surface_flush(cairo_surface_t *surface);
extern void cairo_surface_destroy(cairo_surface_t *surface);
extern cairo_t *cairo_create(cairo_surface_t *target);
extern int cairo_status(cairo_t *cr);
extern void cairo_destroy(cairo_t *cr);

#endif
