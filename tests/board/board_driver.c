// SPDX-License-Identifier: MIT
/* LD_PRELOAD shim for the emulated board: the kernel drivers' store handlers for the attributes
 * whose writes the AD9361 and the Pluto's capture core judge, so libad9361 and zcs-send meet the
 * refusals a real board gives.  A tmpfs file takes any value; these writes (libiio's, iiod's,
 * iio_attr's: all fopen "w", fwrite, fflush) are checked here and applied with everything that
 * follows from them, the way the drivers do it:
 *   ad9361-phy  in/out_voltage_sampling_frequency   one rate for RX and TX, refused where no
 *               chain of half-band filters (and the FIR's decimation, when it is on) puts the ADC
 *               between 25 and 640 MHz, or the FIR's taps exceed ADC/2/rate x 16
 *               in_out_voltage_filter_fir_en          on only with a FIR loaded, either way only
 *               where the rate is still possible
 *               filter_fir_config                     "RX n GAIN g DEC d", "TX n GAIN g INT i",
 *               then the taps; read back as "FIR Rx: TAPS,DEC Tx: TAPS,INT"
 *               rx_path_rates, tx_path_rates, in_voltage_sampling_frequency_available  derived
 *   cf-ad9361-lpc in_voltage_sampling_frequency       the FPGA's decimator: the factor nearest
 *               to the AD9361's rate over the value written must be 1 or 8, and stays across
 *               later rate changes; reads the AD9361's rate over it (the rate delivered)
 *               in_voltage_sampling_frequency_available  "RATE RATE/8 "
 * Any other file is the plain tmpfs file.  State lives in the files themselves (shared by every
 * process in the namespace) plus the decimation factor beside the tree; a lock file serialises
 * the writers.  README.md says where this departs from the real drivers. */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYS "/sys/bus/iio/devices"
#define STATE "/sys/bus/.zcs"          /* beside the tree: libiio lists only SYS */
#define LOCK STATE "/driver.lock"
#define DECIM STATE "/lpc_decimation"

#define MIN_ADC 25000000ull
#define MAX_ADC 640000000ull
#define MAX_HB2_IN 320000000ull        /* HB3's output */
#define MAX_HB1_IN 245760000ull
#define MAX_FIR_IN 122880000ull
#define MAX_RATE 61440000ull
#define MIN_BBPLL 715000000ull
#define MAX_BBPLL 1430000000ull

FILE *fopen(const char *path, const char *mode);
FILE *fopen64(const char *path, const char *mode);

struct chain {
	unsigned long long adc, hb2_in, hb1_in, fir_in, rate;
};

struct fir {
	bool on;
	int taps, dec, tx_taps, tx_int;
};

/* --- the files ---------------------------------------------------------------------------- */

static int read_text(const char *path, char *buf, size_t len)
{
	const int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static void write_text(const char *path, const char *text)
{
	const int fd = open(path, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return;
	(void)!write(fd, text, strlen(text));
	close(fd);
}

/* The device directory whose `name` file says name, into dir; false when there is none. */
static bool find_dev(const char *name, char *dir, size_t len)
{
	DIR *d = opendir(SYS);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char path[512], n[64];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SYS "/%s/name", e->d_name);
		if (read_text(path, n, sizeof(n)) == 0) {
			n[strcspn(n, "\n")] = '\0';
			if (strcmp(n, name) == 0)
				found = (size_t)snprintf(dir, len, SYS "/%s", e->d_name) < len;
		}
	}
	closedir(d);
	return found;
}

static unsigned long long read_ull(const char *dir, const char *attr)
{
	char path[768], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	return read_text(path, buf, sizeof(buf)) == 0 ? strtoull(buf, NULL, 10) : 0;
}

static void write_attr(const char *dir, const char *attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void write_attr(const char *dir, const char *attr, const char *fmt, ...)
{
	char path[768], text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	write_text(path, text);
}

static void read_fir(const char *phy, struct fir *f)
{
	char path[768], buf[128];

	memset(f, 0, sizeof(*f));
	f->on = read_ull(phy, "in_out_voltage_filter_fir_en") != 0;
	snprintf(path, sizeof(path), "%s/filter_fir_config", phy);
	if (read_text(path, buf, sizeof(buf)) == 0)
		(void)sscanf(buf, "FIR Rx: %d,%d Tx: %d,%d", &f->taps, &f->dec, &f->tx_taps,
			     &f->tx_int);
}

static unsigned int decimation(void)
{
	char buf[16];

	return read_text(DECIM, buf, sizeof(buf)) == 0 && atoi(buf) == 8 ? 8 : 1;
}

/* --- the AD9361's clock chain ------------------------------------------------------------- */

/* A chain of half-bands (HB3, HB2, HB1) and the FIR's decimation that makes rate with every
 * stage within its limits; nominal rate governor first (HB3 by 2), then by 3. */
static bool make_chain(unsigned long long rate, const struct fir *f, struct chain *c)
{
	static const unsigned int hb[][3] = {
		{ 2, 2, 2 }, { 3, 2, 2 }, { 2, 2, 1 }, { 3, 2, 1 }, { 2, 1, 1 }, { 3, 1, 1 },
		{ 1, 1, 1 },
	};
	const unsigned long long dec = f->on ? (unsigned long long)f->dec : 1;

	if (rate == 0 || rate > MAX_RATE || dec == 0)
		return false;
	for (size_t i = 0; i < sizeof(hb) / sizeof(hb[0]); i++) {
		c->rate = rate;
		c->fir_in = rate * dec;
		c->hb1_in = c->fir_in * hb[i][2];
		c->hb2_in = c->hb1_in * hb[i][1];
		c->adc = c->hb2_in * hb[i][0];
		if (c->fir_in > MAX_FIR_IN || c->hb1_in > MAX_HB1_IN || c->hb2_in > MAX_HB2_IN ||
		    c->adc < MIN_ADC || c->adc > MAX_ADC)
			continue;
		/* the FIR computes at most 16 taps per ADC/2 clock of each output sample */
		if (f->on && (unsigned long long)f->taps > c->adc / 2 / rate * 16)
			continue;
		return true;
	}
	return false;
}

/* Everything that follows from the rate, the FIR and the decimator, laid into the files. */
static void derive(const char *phy, unsigned long long rate, const struct fir *f)
{
	char lpc[256];
	struct chain c;
	unsigned long long pll;
	const unsigned long long d = f->on ? (unsigned long long)f->dec : 1;

	write_attr(phy, "in_voltage_sampling_frequency", "%llu\n", rate);
	write_attr(phy, "out_voltage_sampling_frequency", "%llu\n", rate);
	write_attr(phy, "in_voltage_sampling_frequency_available", "[%llu 1 %llu]\n",
		   MIN_ADC / 12 / d, MAX_RATE);
	write_attr(phy, "in_out_voltage_filter_fir_en", "%d\n", f->on ? 1 : 0);
	write_attr(phy, "filter_fir_config", "FIR Rx: %d,%d Tx: %d,%d\n", f->taps, f->dec,
		   f->tx_taps, f->tx_int);
	if (make_chain(rate, f, &c)) {
		for (pll = c.adc; pll < MIN_BBPLL && pll * 2 <= MAX_BBPLL; pll *= 2)
			;
		write_attr(phy, "rx_path_rates", "BBPLL:%llu ADC:%llu R2:%llu R1:%llu RF:%llu "
			   "RXSAMP:%llu\n", pll, c.adc, c.hb2_in, c.hb1_in, c.fir_in, c.rate);
		/* the DAC runs at half the ADC's clock, its half-bands and FIR as the RX side's */
		write_attr(phy, "tx_path_rates", "BBPLL:%llu DAC:%llu T2:%llu T1:%llu TF:%llu "
			   "TXSAMP:%llu\n", pll, c.adc / 2, c.adc / 2, c.hb1_in, c.fir_in, c.rate);
	}
	if (find_dev("cf-ad9361-lpc", lpc, sizeof(lpc))) {
		write_attr(lpc, "in_voltage_sampling_frequency", "%llu\n", rate / decimation());
		write_attr(lpc, "in_voltage_sampling_frequency_available", "%llu %llu \n", rate,
			   rate / 8);
	}
}

/* --- the store handlers ------------------------------------------------------------------- */

/* A whole number as sysfs's kstrto* takes it: digits, then at most a newline (libiio also
 * writes its string's NUL). */
static bool parse_ull(const char *s, size_t len, unsigned long long *v)
{
	char buf[64], *end;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[0] < '0' || buf[0] > '9')
		return false;
	*v = strtoull(buf, &end, 10);
	return *end == '\0' || (*end == '\n' && end[1] == '\0');
}

static int store_rate(const char *phy, const char *s, size_t len)
{
	unsigned long long rate;
	struct fir f;
	struct chain c;

	read_fir(phy, &f);
	if (!parse_ull(s, len, &rate) || !make_chain(rate, &f, &c))
		return -EINVAL;
	derive(phy, rate, &f);
	return 0;
}

static int store_fir_en(const char *phy, const char *s, size_t len)
{
	const unsigned long long rate = read_ull(phy, "in_voltage_sampling_frequency");
	unsigned long long on;
	struct fir f;
	struct chain c;

	read_fir(phy, &f);
	if (!parse_ull(s, len, &on) || on > 1)
		return -EINVAL;
	f.on = on;
	if ((f.on && f.taps == 0) || !make_chain(rate, &f, &c))
		return -EINVAL;
	derive(phy, rate, &f);
	return 0;
}

static int store_fir_config(const char *phy, const char *s, size_t len)
{
	const unsigned long long rate = read_ull(phy, "in_voltage_sampling_frequency");
	char *text = strndup(s, len), *save = NULL;
	int rx = -1, tx = -1, gain, dec = 0, intp = 0, taps = 0;
	struct fir f;
	struct chain c;

	if (!text)
		return -ENOMEM;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int a, b;

		if (line[0] == '#')
			continue;
		if (tx < 0 && sscanf(line, "TX %d GAIN %d INT %d", &tx, &gain, &intp) == 3)
			continue;
		if (rx < 0 && sscanf(line, "RX %d GAIN %d DEC %d", &rx, &gain, &dec) == 3)
			continue;
		if (sscanf(line, "%d,%d", &a, &b) >= 1)
			taps++;
	}
	free(text);
	read_fir(phy, &f);
	if (rx < 1 || rx > 3 || tx < 1 || tx > 3 || (dec != 1 && dec != 2 && dec != 4) ||
	    (intp != 1 && intp != 2 && intp != 4) || taps < 16 || taps > 128 || taps % 16)
		return -EINVAL;
	f.taps = f.tx_taps = taps;
	f.dec = dec;
	f.tx_int = intp;
	if (f.on && !make_chain(rate, &f, &c))
		return -EINVAL;
	derive(phy, rate, &f);
	return 0;
}

static int store_decimation(const char *s, size_t len)
{
	char phy[256];
	unsigned long long f, rate, factor;
	struct fir fir;

	if (!parse_ull(s, len, &f) || f == 0 || !find_dev("ad9361-phy", phy, sizeof(phy)))
		return -EINVAL;
	rate = read_ull(phy, "in_voltage_sampling_frequency");
	factor = (rate + f / 2) / f;
	if (factor != 1 && factor != 8)
		return -EINVAL;
	write_text(DECIM, factor == 8 ? "8\n" : "1\n");
	read_fir(phy, &fir);
	derive(phy, rate, &fir);
	return 0;
}

/* --- the interception --------------------------------------------------------------------- */

enum which { NONE, PHY_RATE, PHY_FIR_EN, PHY_FIR_CONFIG, LPC_RATE };

struct store {
	enum which which;
	char dir[256];
	char buf[16384];   /* the stream's buffer: one write per fflush for any sysfs value */
};

static enum which classify(const char *path, char *dir, size_t len)
{
	const char *slash;
	char name[64], npath[512];

	if (strncmp(path, SYS "/", sizeof(SYS)) != 0 || !(slash = strrchr(path, '/')) ||
	    (size_t)(slash - path) >= len)
		return NONE;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (strchr(dir + sizeof(SYS), '/'))   /* buffer/, scan_elements/: the kernel's own */
		return NONE;
	snprintf(npath, sizeof(npath), "%s/name", dir);
	if (read_text(npath, name, sizeof(name)) < 0)
		return NONE;
	name[strcspn(name, "\n")] = '\0';
	slash++;
	if (strcmp(name, "ad9361-phy") == 0) {
		if (!strcmp(slash, "in_voltage_sampling_frequency") ||
		    !strcmp(slash, "out_voltage_sampling_frequency"))
			return PHY_RATE;
		if (!strcmp(slash, "in_out_voltage_filter_fir_en"))
			return PHY_FIR_EN;
		if (!strcmp(slash, "filter_fir_config"))
			return PHY_FIR_CONFIG;
	} else if (strcmp(name, "cf-ad9361-lpc") == 0 &&
		   !strcmp(slash, "in_voltage_sampling_frequency")) {
		return LPC_RATE;
	}
	return NONE;
}

static ssize_t store_write(void *cookie, const char *s, size_t len)
{
	struct store *st = cookie;
	int lock, ret;

	mkdir(STATE, 0755);
	lock = open(LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock >= 0)
		(void)flock(lock, LOCK_EX);
	switch (st->which) {
	case PHY_RATE:
		ret = store_rate(st->dir, s, len);
		break;
	case PHY_FIR_EN:
		ret = store_fir_en(st->dir, s, len);
		break;
	case PHY_FIR_CONFIG:
		ret = store_fir_config(st->dir, s, len);
		break;
	case LPC_RATE:
		ret = store_decimation(s, len);
		break;
	default:
		ret = -EINVAL;
	}
	if (lock >= 0)
		close(lock);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return (ssize_t)len;
}

static int store_close(void *cookie)
{
	free(cookie);
	return 0;
}

static FILE *intercept(const char *sym, const char *path, const char *mode)
{
	FILE *(*real)(const char *, const char *) =
		(FILE * (*)(const char *, const char *))dlsym(RTLD_NEXT, sym);
	struct store *st;
	enum which w;
	FILE *f;

	if (!real) {
		errno = ENOSYS;
		return NULL;
	}
	if (!path || !mode || !strchr(mode, 'w'))
		return real(path, mode);
	st = calloc(1, sizeof(*st));
	if (!st)
		return real(path, mode);
	w = classify(path, st->dir, sizeof(st->dir));
	if (w == NONE) {
		free(st);
		return real(path, mode);
	}
	st->which = w;
	f = fopencookie(st, "w", (cookie_io_functions_t){ .write = store_write,
							   .close = store_close });
	if (!f) {
		free(st);
		return NULL;
	}
	(void)setvbuf(f, st->buf, _IOFBF, sizeof(st->buf));
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	return intercept("fopen", path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	return intercept("fopen64", path, mode);
}
