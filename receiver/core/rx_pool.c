// SPDX-License-Identifier: MIT
/* The engine's pool of buffers (see rx_pool.h): one allocation of nbufs equal buffers and a free
 * list of their indices; grown whole, only while none of them is in use. */
#include <errno.h>
#include <stdlib.h>

#include "rx_pool.h"

/* Points every buffer at its bytes in mem (the one being handled keeps its datagram: a segment
 * of the batch slot it was read into). */
static void point(struct zcs_rx *rx)
{
	for (size_t i = 0; i < rx->nbufs; i++) {
		rx->bufs[i].own = rx->mem + i * rx->buf_size;
		if (i != rx->gro_buf)
			rx->bufs[i].data = rx->bufs[i].own;
	}
}

int zcs_rx_pool_init(struct zcs_rx *rx)
{
	rx->buf_size = rx->opt.max_dgram < ZCS_RX_POOL_DGRAM ? rx->opt.max_dgram : ZCS_RX_POOL_DGRAM;
	rx->mem = malloc(rx->nbufs * rx->buf_size);
	rx->bufs = calloc(rx->nbufs, sizeof(*rx->bufs));
	rx->free_list = calloc(rx->nbufs, sizeof(*rx->free_list));
	if (!rx->mem || !rx->bufs || !rx->free_list)
		return -ENOMEM;
	/* all free but one, gro_buf, through which each datagram read is handled */
	for (size_t i = 0; i < rx->nbufs; i++)
		rx->free_list[rx->nfree++] = (uint32_t)i;
	rx->gro_buf = rx->free_list[--rx->nfree];
	point(rx);
	rx->bufs[rx->gro_buf].data = rx->bufs[rx->gro_buf].own;
	return 0;
}

void zcs_rx_pool_free(struct zcs_rx *rx)
{
	free(rx->mem);
	free(rx->bufs);
	free(rx->free_list);
	rx->mem = NULL;
	rx->bufs = NULL;
	rx->free_list = NULL;
}

bool zcs_rx_pool_fit(struct zcs_rx *rx, size_t need)
{
	size_t size;
	uint8_t *mem;

	if (need <= rx->buf_size)
		return true;
	if (need > rx->opt.max_dgram || rx->nfree + 1 != rx->nbufs)
		return false;
	size = (need + 4095) & ~(size_t)4095;
	if (size > rx->opt.max_dgram)
		size = rx->opt.max_dgram;
	mem = malloc(rx->nbufs * size);
	if (!mem)
		return false;
	free(rx->mem);
	rx->mem = mem;
	rx->buf_size = size;
	point(rx);
	/* the parity's store is sized per datagram too: with the pool, until it holds any */
	if (!rx->fec.mem)
		zcs_fec_rx_size(&rx->fec, size);
	return true;
}
