// SPDX-License-Identifier: MIT
/* Unit tests for receiver/recv_opts.c: zcs-recv's defaults, every option reaching its field,
 * and every refusal naming the option and the value, as docs/receiver.md promises. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recv_opts.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_ARGS 40

/* Parses a NULL-terminated argument list (argv[0] is added). */
static int parse(struct zcs_recv_opts *o, char *err, size_t errlen, const char *const *args)
{
	char *argv[MAX_ARGS + 2] = { (char *)"zcs-recv" };
	int argc = 1;

	for (; args[argc - 1]; argc++) {
		ck_assert_int_lt(argc, MAX_ARGS);
		argv[argc] = (char *)args[argc - 1];
	}
	err[0] = '\0';
	return zcs_recv_parse_opts(argc, argv, o, err, errlen);
}

START_TEST(test_defaults)
{
	static const char *const args[] = { NULL };
	struct zcs_recv_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, sizeof(err), args), ZCS_RECV_RUN);
	ck_assert_int_eq(o.rx.type, ZCS_SAMPLE_CS16);
	ck_assert_int_eq(o.rx.rcvbuf, ZCS_RX_DEFAULT_RCVBUF);
	ck_assert_uint_eq(o.rx.max_dgram, ZCS_RX_DEFAULT_MAX_DGRAM);
	ck_assert_uint_eq(o.rx.batch, ZCS_RX_DEFAULT_BATCH);
	ck_assert_uint_eq(o.rx.window, 0);     /* 0: sized from the stream's rate */
	ck_assert(!o.rx.gap_drop && !o.rx.exit_on_eos && !o.rx.no_gro && !o.rx.have_stream);
	ck_assert_uint_eq(o.rx.count, 0);
	ck_assert_ptr_null(o.rx.listen);
	ck_assert_uint_eq(o.noutputs, 0);
	ck_assert(o.interval == 1.0);
	ck_assert(o.eos_timeout == ZCS_RECV_DEFAULT_EOS_TIMEOUT);
	ck_assert(!o.json && !o.quiet);
}
END_TEST

START_TEST(test_every_option)
{
	static const char *const args[] = {
		"-o", "fifo:/tmp/x", "--output", "tcp:1234", "-F", "cf32", "--iface", "lo",
		"--source", "198.18.0.1", "--stream", "0x10", "--window", "128", "--gap", "drop",
		"-n", "2.4M", "--exit-on-eos", "--eos-timeout", "0.5", "--json", "--rcvbuf", "8M",
		"--max-datagram", "1500", "--batch", "32", "--no-gro", "--interval", "0.25",
		"--hold", "250", "-q", "239.1.2.3:5000", NULL,
	};
	struct zcs_recv_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, sizeof(err), args), ZCS_RECV_RUN);
	ck_assert_uint_eq(o.noutputs, 2);
	ck_assert_str_eq(o.outputs[0], "fifo:/tmp/x");
	ck_assert_str_eq(o.outputs[1], "tcp:1234");
	ck_assert_int_eq(o.rx.type, ZCS_SAMPLE_CF32);
	ck_assert_str_eq(o.rx.iface, "lo");
	ck_assert_str_eq(o.rx.source, "198.18.0.1");
	ck_assert(o.rx.have_stream);
	ck_assert_uint_eq(o.rx.stream_id, 16);
	ck_assert_uint_eq(o.rx.window, 128);
	ck_assert(o.rx.gap_drop);
	ck_assert_uint_eq(o.rx.count, 2400000);
	ck_assert(o.rx.exit_on_eos);
	ck_assert(o.eos_timeout == 0.5);
	ck_assert(o.json);
	ck_assert_int_eq(o.rx.rcvbuf, 8000000);
	ck_assert_uint_eq(o.rx.max_dgram, 1500);
	ck_assert_uint_eq(o.rx.batch, 32);
	ck_assert(o.rx.no_gro);
	ck_assert(o.interval == 0.25);
	ck_assert_uint_eq(o.rx.hold_ms, 250);
	ck_assert(o.quiet);
	ck_assert_str_eq(o.rx.listen, "239.1.2.3:5000");
}
END_TEST

START_TEST(test_help_version)
{
	static const char *const h[] = { "--window", "8", "-h", NULL };
	static const char *const v[] = { "--version", NULL };
	struct zcs_recv_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, sizeof(err), h), ZCS_RECV_HELP);
	ck_assert_int_eq(parse(&o, err, sizeof(err), v), ZCS_RECV_VERSION);
	ck_assert_ptr_nonnull(strstr(zcs_recv_usage(), "--out-format"));
}
END_TEST

/* Each refusal: the arguments and the pieces the message must hold (the option as spelled in
 * --help, and the value as given). */
static const struct refusal {
	const char *args[7];   /* NULL-terminated */
	const char *want[2];
} refusals[] = {
	{ { "--window", "0" }, { "--window '0'", "out of range" } },
	{ { "--window", "99999" }, { "--window '99999'", "1.." } },
	{ { "--window", "eight" }, { "--window 'eight'", "not a number" } },
	{ { "-n", "0" }, { "-n/--count '0'", "out of range" } },
	{ { "--count", "-5" }, { "-n/--count '-5'", NULL } },
	{ { "--batch", "2000" }, { "--batch '2000'", "1..1024" } },
	{ { "--rcvbuf", "10" }, { "--rcvbuf '10'", NULL } },
	{ { "--max-datagram", "10" }, { "--max-datagram '10'", NULL } },
	{ { "--hold", "0" }, { "--hold '0'", NULL } },
	{ { "--interval", "-1" }, { "--interval '-1'", "0..3600" } },
	{ { "--interval", "x" }, { "--interval 'x'", "not a number" } },
	{ { "--exit-on-eos", "--eos-timeout", "1e6" }, { "--eos-timeout '1e6'", "0..86400" } },
	{ { "--eos-timeout", "5" }, { "--eos-timeout", "--exit-on-eos only" } },
	{ { "--stream", "0x100000000" }, { "--stream '0x100000000'", "32-bit" } },
	{ { "--stream", "-1" }, { "--stream '-1'", NULL } },
	{ { "--stream", "zz" }, { "--stream 'zz'", NULL } },
	{ { "--gap", "maybe" }, { "--gap 'maybe'", "zero or drop" } },
	{ { "-F", "cs12" }, { "-F/--out-format 'cs12'", "cs16" } },
	{ { "-o", "" }, { "-o/--output ''", "empty" } },
	{ { "--iface", "" }, { "--iface ''", NULL } },
	{ { "--source", "" }, { "--source ''", NULL } },
	{ { "--window" }, { "option '--window' needs a value", NULL } },
	{ { "-o" }, { "option '-o' needs a value", NULL } },
	{ { "-qo" }, { "option '-o' needs a value", NULL } },
	{ { "--bogus" }, { "unknown option '--bogus'", NULL } },
	{ { "--bogus=3" }, { "unknown option '--bogus'", NULL } },
	{ { "-x" }, { "unknown option '-x'", NULL } },
	{ { "--json", "-qx" }, { "unknown option '-x'", NULL } },
	/* regression (quiet_eq_1): a long option given a value it takes none of is named as typed,
	 * never by its letter ("-q") nor by its code above 255 (a raw control byte) */
	{ { "--quiet=1" }, { "option '--quiet' takes no value", "'--quiet=1'" } },
	{ { "--json=1" }, { "option '--json' takes no value", "'--json=1'" } },
	{ { "--exit-on-eos=yes" }, { "option '--exit-on-eos' takes no value", NULL } },
	{ { "a:1", "b:2" }, { "unexpected argument 'b:2'", NULL } },
	/* the allow list of rtl_tcp clients whose tuning is forwarded (issue 22, part 4) */
	{ { "--key", "k", "--control", "5392", "--control-allow", "198.18.5.1/24" },
	  { "--control-allow '198.18.5.1/24'", "past its /24" } },
	{ { "--key", "k", "--control", "5392", "--control-allow", "198.18.0.0/33" },
	  { "--control-allow '198.18.0.0/33'", "0..32" } },
	{ { "--key", "k", "--control", "5392", "--control-allow", "fd00::/129" },
	  { "--control-allow 'fd00::/129'", "0..128" } },
	{ { "--key", "k", "--control", "5392", "--control-allow", "lab-pc.local" },
	  { "--control-allow 'lab-pc.local'", "not an IPv4 or IPv6 address" } },
	{ { "--key", "k", "--control", "5392", "--control-allow", "198.18.0.0/15,,::1" },
	  { "--control-allow '198.18.0.0/15,,::1'", "empty entry" } },
	{ { "--key", "k", "--control", "5392", "--control-allow", "198.18.0.0/x" },
	  { "--control-allow '198.18.0.0/x'", "prefix length" } },
	{ { "--control-allow", "198.18.0.0/15" }, { "--control-allow", "with --control only" } },
	{ { "--key", "/k", "--no-key" }, { "--key and --no-key", NULL } },
	{ { "--control", "5392", "--no-key" }, { "--control needs a key", "--no-key" } },
	{ { "--run-state", "/s", "--no-key" }, { "--run-state", "--no-key leaves none" } },
	{ { "--state-dir", "/var/lib/zcs", "--no-key" }, { "--state-dir", "--no-key leaves none" } },
	{ { "--key", "/k", "--state-dir", "/d", "--run-state", "/s" },
	  { "--state-dir and --run-state", "one or the other" } },
};

START_TEST(test_refusals)
{
	const struct refusal *r = &refusals[_i];
	struct zcs_recv_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, sizeof(err), r->args), -EINVAL);
	for (size_t k = 0; k < NELEM(r->want); k++)
		if (r->want[k])
			ck_assert_msg(strstr(err, r->want[k]), "%s: \"%s\" lacks \"%s\"", r->args[0],
				      err, r->want[k]);
}
END_TEST

START_TEST(test_control_allow)
{
	static const char *const args[] = { "--key", "k", "--control", "5392", "--control-allow",
					    "198.18.0.0/15,fd00::/8", "--control-allow",
					    "192.168.1.20", NULL };
	struct zcs_recv_opts o;
	struct zcs_addr a;
	char err[256];

	ck_assert_int_eq(parse(&o, err, sizeof(err), args), ZCS_RECV_RUN);
	ck_assert_uint_eq(o.ncontrol_allow, 3);
	ck_assert_uint_eq(o.control_allow[0].bits, 15);
	ck_assert_uint_eq(o.control_allow[1].bits, 8);
	ck_assert_uint_eq(o.control_allow[2].bits, 32);
	ck_assert_int_eq(zcs_net_parse_addr(&a, "198.19.255.1:4000", 0, err, sizeof(err)), 0);
	ck_assert(zcs_net_prefix_match(&o.control_allow[0], &a));
	ck_assert_int_eq(zcs_net_parse_addr(&a, "192.168.1.21:4000", 0, err, sizeof(err)), 0);
	ck_assert(!zcs_net_prefix_match(&o.control_allow[2], &a));
}
END_TEST

START_TEST(test_too_many_outputs)
{
	const char *args[2 * (ZCS_RECV_MAX_OUTPUTS + 1) + 1];
	char specs[ZCS_RECV_MAX_OUTPUTS + 1][32];
	struct zcs_recv_opts o;
	char err[256];

	for (size_t i = 0; i <= ZCS_RECV_MAX_OUTPUTS; i++) {
		snprintf(specs[i], sizeof(specs[i]), "file:/tmp/%zu", i);
		args[2 * i] = "-o";
		args[2 * i + 1] = specs[i];
	}
	args[2 * ZCS_RECV_MAX_OUTPUTS] = NULL;
	ck_assert_int_eq(parse(&o, err, sizeof(err), args), ZCS_RECV_RUN);
	ck_assert_uint_eq(o.noutputs, ZCS_RECV_MAX_OUTPUTS);
	args[2 * ZCS_RECV_MAX_OUTPUTS] = "-o";
	args[2 * ZCS_RECV_MAX_OUTPUTS + 2] = NULL;
	ck_assert_int_eq(parse(&o, err, sizeof(err), args), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "too many outputs"));
}
END_TEST

/* The default key where no --key is given: zcs_recv_default_key with a test's environment (Check
 * runs each test in a process of its own). */
START_TEST(test_default_key)
{
	static const char *const plain[] = { NULL };
	static const char *const no_key[] = { "--no-key", NULL };
	static const char *const given[] = { "--key", "/given", NULL };
	static const char *const control[] = { "--control", "5392", NULL };
	char err[512], path[256], note[256], dir[] = "/tmp/zcs-recv-opts-XXXXXX", key[300];
	struct zcs_recv_opts o;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(key, sizeof(key), "%s/k", dir);
	ck_assert_ptr_nonnull(f = fopen(key, "w"));
	fclose(f);
	ck_assert_int_eq(setenv("ZCS_KEY", key, 1), 0);
	/* none given: the default one, said to be the default */
	ck_assert_int_eq(parse(&o, err, sizeof(err), plain), ZCS_RECV_RUN);
	ck_assert_ptr_null(o.key_path);
	ck_assert_int_eq(zcs_recv_default_key(&o, path, sizeof(path), note, sizeof(note), err,
					      sizeof(err)), 0);
	ck_assert_str_eq(o.key_path, key);
	ck_assert(o.key_default);
	/* --control is served by it (the parse leaves the question to the search) */
	ck_assert_int_eq(parse(&o, err, sizeof(err), control), ZCS_RECV_RUN);
	ck_assert_int_eq(zcs_recv_default_key(&o, path, sizeof(path), note, sizeof(note), err,
					      sizeof(err)), 0);
	ck_assert_str_eq(o.key_path, key);
	/* --key wins; --no-key leaves none */
	ck_assert_int_eq(parse(&o, err, sizeof(err), given), ZCS_RECV_RUN);
	ck_assert_int_eq(zcs_recv_default_key(&o, path, sizeof(path), note, sizeof(note), err,
					      sizeof(err)), 0);
	ck_assert_str_eq(o.key_path, "/given");
	ck_assert(!o.key_default);
	ck_assert_int_eq(parse(&o, err, sizeof(err), no_key), ZCS_RECV_RUN);
	ck_assert_int_eq(zcs_recv_default_key(&o, path, sizeof(path), note, sizeof(note), err,
					      sizeof(err)), 0);
	ck_assert_ptr_null(o.key_path);
	/* ZCS_KEY=none: no default key, and --control has none to use */
	ck_assert_int_eq(setenv("ZCS_KEY", "none", 1), 0);
	ck_assert_int_eq(parse(&o, err, sizeof(err), plain), ZCS_RECV_RUN);
	ck_assert_int_eq(zcs_recv_default_key(&o, path, sizeof(path), note, sizeof(note), err,
					      sizeof(err)), 0);
	ck_assert_ptr_null(o.key_path);
	ck_assert(!o.key_default);
	ck_assert_int_eq(parse(&o, err, sizeof(err), control), ZCS_RECV_RUN);
	ck_assert_int_eq(zcs_recv_default_key(&o, path, sizeof(path), note, sizeof(note), err,
					      sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--control needs a key"));
	ck_assert_int_eq(unlink(key), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *recv_opts_suite(void)
{
	Suite *s = suite_create("recv_opts");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_every_option);
	tcase_add_test(tc, test_help_version);
	tcase_add_loop_test(tc, test_refusals, 0, (int)NELEM(refusals));
	tcase_add_test(tc, test_too_many_outputs);
	tcase_add_test(tc, test_control_allow);
	tcase_add_test(tc, test_default_key);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(recv_opts_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
