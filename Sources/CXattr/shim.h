#ifndef CXATTR_SHIM_H
#define CXATTR_SHIM_H
// Extended attributes are in glibc but not in Swift's Glibc module.
#include <sys/types.h>
#include <sys/xattr.h>
#endif
