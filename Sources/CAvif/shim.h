#ifndef CAVIF_SHIM_H
#define CAVIF_SHIM_H
#include <avif/avif.h>
#endif
