#ifndef LIVECONNECTION_CZLIB_SHIM_H
#define LIVECONNECTION_CZLIB_SHIM_H
// The system zlib (zlib1g-dev on Debian/Ubuntu; part of the macOS SDK).
#include <zlib.h>

// deflateInit2 and inflateInit2 are macros (they pass the library version and the
// stream's size so zlib can refuse a mismatched header); Swift cannot import them.
static inline int liveconnection_deflate_init2(z_streamp stream, int level, int windowBits, int memLevel,
                                               int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, strategy);
}
static inline int liveconnection_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
#endif
