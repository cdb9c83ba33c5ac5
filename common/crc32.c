/* crc32.c — bitwise-table CRC-32 (reflected polynomial 0xEDB88320). */
#include "crc32.h"

static uint32_t table_entry(uint32_t c) {
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    return c;
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t len) {
    static uint32_t table[256];
    static int ready = 0; /* benign race: every thread computes identical entries */
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) table[i] = table_entry(i);
        ready = 1;
    }
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < len; i++) crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}
