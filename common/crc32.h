/* crc32.h — CRC-32 (IEEE 802.3, the zlib/PNG one): a checksum for dataset and checkpoint payloads. */
#ifndef DPC_CRC32_H
#define DPC_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: crc32_update(0, ...) starts one. crc32_update(0, "123456789", 9) == 0xCBF43926. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

#endif
