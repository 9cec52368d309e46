#ifndef CIMAGEQUANT_SHIM_H
#define CIMAGEQUANT_SHIM_H
// libimagequant (pngquant's palette quantiser): the GIF encoder's palettes.
#include <libimagequant.h>
#endif
