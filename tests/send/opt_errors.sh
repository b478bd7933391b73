#!/bin/bash
# zcs-send refuses each bad option, value, combination and destination with exit status 2 and a
# message naming it, before it opens anything (nothing is sent: no receiver is needed).
set -euo pipefail
send=$1
fails=0

# expect WORD ARGS...: zcs-send ARGS must exit 2 and say WORD on standard error.
expect() {
	local word=$1 out rc
	shift
	set +e
	out=$("$send" "$@" 2>&1 >/dev/null)
	rc=$?
	set -e
	if [[ $rc -ne 2 ]]; then
		echo "FAIL: zcs-send $* exited $rc, expected 2 ($out)"
		fails=$((fails + 1))
	elif [[ $out != *"$word"* ]]; then
		echo "FAIL: zcs-send $*: message does not name '$word': $out"
		fails=$((fails + 1))
	else
		echo "ok: $* -> $out"
	fi
}

d=127.0.0.1:20999
expect "--format 'p13'" -s tone -f p13 $d
expect "--source 'radio'" -s radio $d
expect "--rate 'fast'" -s tone -r fast $d
expect "--rate '0'" -s tone -r 0 $d
expect "--count 'many'" -s tone -n many $d
expect "--count '0'" -s tone -n 0 $d
expect "--count '-5'" -s tone -n -5 $d
expect "--amplitude '1.5'" -s tone --amplitude 1.5 $d
expect "--tone 'loud'" -s tone --tone loud $d
expect "--tone 600000" -s tone --tone 600k -r 1M $d
expect "--mtu '100'" -s tone --mtu 100 $d
expect "--mtu '70000'" -s tone --mtu 70000 $d
expect "--ttl '0'" -s tone --ttl 0 239.1.2.3 $d
expect "--control needs --key" -s tone --control 5392 $d
expect "--run-counter numbers keyed runs: it needs --key" -s tone --run-counter /tmp/x.run $d
expect "--run-counter '': empty file name" -s tone --key /dev/null --run-counter '' $d
expect "--control-clients '0'" -s tone --key /dev/null --control 5392 --control-clients 0 $d
expect "--key" -s tone --key /nonexistent/zcs.key $d
expect "--zstd='30'" -s tone --zstd=30 $d
expect "--send-path 'fastest'" -s tone --send-path fastest $d
expect "--cpus '1'" -s tone --cpus 1 $d
expect "--cpus 'a,b'" -s tone --cpus a,b $d
expect "bad send CPU '4000'" -s tone --cpus 0,4000 $d
expect "--cpus: CPU1000 is not available" -s tone --cpus 0,1000 $d
expect "--send-threads '3': out of range: 1, 2 or auto" -s tone --send-threads 3 $d
expect "--send-threads '0'" -s tone --send-threads 0 $d
expect "--file-type 'wav'" -s file:/dev/null --file-type wav $d
expect "--file-type 'native'" -s file:/dev/null --file-type native $d
# a SigMF recording without its .sigmf-meta (or with one zcs-send cannot replay) needs --file-type
sigdir=$(mktemp -d)
trap 'rm -rf "$sigdir"' EXIT
: >"$sigdir/none.sigmf-data"
expect "none.sigmf-meta" -s "file:$sigdir/none.sigmf-data" $d
: >"$sigdir/real.sigmf-data"
echo '{"global":{"core:datatype":"ri16_le","core:sample_rate":1e6}}' >"$sigdir/real.sigmf-meta"
expect 'core:datatype "ri16_le"' -s "file:$sigdir/real.sigmf-data" $d
: >"$sigdir/stereo.sigmf-data"
echo '{"global":{"core:datatype":"ci16_le","core:num_channels":2}}' >"$sigdir/stereo.sigmf-meta"
expect "core:num_channels" -s "file:$sigdir/stereo.sigmf-data" $d
: >"$sigdir/norate.sigmf-data"
echo '{"global":{"core:datatype":"cf32_le","core:sample_rate":"fast"}}' >"$sigdir/norate.sigmf-meta"
expect "core:sample_rate" -s "file:$sigdir/norate.sigmf-data" $d
expect "--channel 'rx3'" -s iio --channel rx3 $d
expect "--gain 'loud'" -s iio --gain loud $d
expect "unknown option '--bogus'" -s tone --bogus $d
expect "unknown option '-x'" -s tone -x $d
expect "option '--tone' needs a value" -s tone --tone
expect "option '-n' needs a value" -s tone $d -n
# regression (quiet_eq_1): a long option given a value it does not take is named as typed, never
# as '-q' nor as a raw control byte (long-only options have codes above 255)
expect "option '--quiet' takes no value (given '--quiet=1'" -s tone --quiet=1 $d
expect "option '--noise' takes no value (given '--noise=1'" -s tone --noise=1 $d
expect "option '--json' takes no value" -s tone --json=yes $d
out=$("$send" -s tone --unpaced=1 $d 2>&1 >/dev/null || true)
if [[ $out =~ [[:cntrl:]] ]]; then
	echo "FAIL: a control byte in: $(printf '%q' "$out")"
	fails=$((fails + 1))
fi
expect "missing destination" -s tone
expect "unexpected argument 'extra'" -s tone $d extra
expect "destination 'no.such.host.invalid'" -s tone no.such.host.invalid
expect "destination '127.0.0.1:99999'" -s tone 127.0.0.1:99999
expect "destination ':5391'" -s tone :5391
expect "destination '[::1'" -s tone '[::1'
# combinations
expect "--freq" -s tone --freq 100M $d
expect "--tone" -s file:/dev/null --tone 1k $d
expect "--tone and --noise" -s noise --tone 1k $d
expect "--loop" -s tone --loop $d
expect "--loop" -s - --loop $d
# a build without libiio or libzstd refuses the source or the option itself first
features=$("$send" --version)
if [[ $features == *"libiio yes"* ]]; then
	expect "-r max" -s iio -r max $d
else
	expect "--source iio: this build has no libiio" -s iio -r max $d
fi
if [[ $features == *"zstd yes"* ]]; then
	expect "--zstd with --send-path gso" -s tone --zstd --send-path gso $d
else
	expect "--zstd: this build has no libzstd" -s tone --zstd --send-path gso $d
fi
expect "--ttl and --mcast-loop" -s tone --ttl 2 $d
# --announce[=NAME]: a DNS-SD name is 1..63 bytes of text; a build without avahi refuses it
if [[ $features == *"avahi yes"* ]]; then
	expect "--announce='': a name is 1..63 bytes" -s tone --announce= $d
	expect "a name is 1..63 bytes" -s tone "--announce=$(printf 'n%.0s' $(seq 64))" $d
	expect "a name is 1..63 bytes" -s tone "--announce=$(printf 'a\tb')" $d
else
	expect "--announce: this build has no DNS-SD" -s tone --announce $d
fi

# and the good ones: --help and --version exit 0 and say what they should (read whole first:
# grep -q leaves at the first match, and a --help longer than stdio's 4 KB buffer then dies of
# SIGPIPE on its second write, which pipefail counts as a failure)
out=$("$send" --help) && grep -q -- '--send-path' <<<"$out" ||
	{ echo "FAIL: --help"; fails=$((fails + 1)); }
out=$("$send" --version) && grep -q '^zcs-send ' <<<"$out" ||
	{ echo "FAIL: --version"; fails=$((fails + 1)); }

if [[ $fails -ne 0 ]]; then
	echo "$fails failures"
	exit 1
fi
echo "all option errors refused"
