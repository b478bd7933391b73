// SPDX-License-Identifier: MIT
/* cm256cc (a C++ class) behind the C face bench_fec.c calls. */
#include <cstdint>

#include <cm256cc/cm256.h>

static CM256 *cm;

extern "C" int bench_cm256_init(void)
{
	if (!cm)
		cm = new CM256();
	return cm->isInitialized() ? 0 : -1;
}

extern "C" int bench_cm256_encode(int k, int m, uint8_t **data, uint8_t *parity)
{
	CM256::cm256_encoder_params p = { k, m, 1472 };
	CM256::cm256_block b[256];

	for (int i = 0; i < k; i++) {
		b[i].Block = data[i];
		b[i].Index = (unsigned char)i;
	}
	return cm->cm256_encode(p, b, parity);
}

extern "C" int bench_cm256_decode(int k, int m, uint8_t **blocks, const int *index)
{
	CM256::cm256_encoder_params p = { k, m, 1472 };
	CM256::cm256_block b[256];

	for (int i = 0; i < k; i++) {
		b[i].Block = blocks[i];
		b[i].Index = (unsigned char)index[i];
	}
	return cm->cm256_decode(p, b);
}
