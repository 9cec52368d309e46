#ifndef ASYNCWEBIMAGE_CJXL_SHIM_H
#define ASYNCWEBIMAGE_CJXL_SHIM_H

// libjxl's decoder and encoder. No pkg-config: libjxl.pc's cflags carry
// -DHWY_SHARED_DEFINE (for Highway's C++ headers, which this module does
// not read), a flag SwiftPM rejects as prohibited with a warning on every
// build; the headers are in the default include path.
#include <jxl/decode.h>
#include <jxl/encode.h>

#endif
