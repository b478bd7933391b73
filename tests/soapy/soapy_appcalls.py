# SPDX-License-Identifier: MIT
# A python3-soapysdr client that makes the calls GUI applications make on a device, in their
# order, CubicSDR 0.2.7's first (src/sdr/SDREnumerator.cpp, forms/SDRDevices/SDRDevices.cpp,
# sdr/SoapySDRThread.cpp init/updateSettings/updateGains/readStream, AppFrame.cpp
# handleUpdateDeviceParams: it lists the TX antennas of every device, which the module used to
# answer with an exception that ended CubicSDR), then the other ones an application may make.
# Each call's outcome is recorded ('ok' or the exception's text): none may throw, because
# CubicSDR and GQRX end on an exception from their input.  Samples are read before and after.
# With 'wait' as the third argument, it prints 'waiting' on stderr after the calls and reads a
# line from stdin (the test stops the sender meanwhile), then sets the frequency once more and
# reads on with CubicSDR's timeout of 2^30 us until two reads in a row time out.
# The device is made from what enumerate(ARGS) lists first, as CubicSDR makes it.
# Prints one JSON line.  Usage: soapy_appcalls.py ARGS FREQ [wait]
import json
import sys

import numpy as np
import SoapySDR
from SoapySDR import SOAPY_SDR_RX, SOAPY_SDR_TX

args, freq = sys.argv[1], float(sys.argv[2])
wait = len(sys.argv) > 3 and sys.argv[3] == 'wait'
calls, values = {}, {}


def call(label, fn):
    """fn's result (kept in values under label), or None with the exception recorded."""
    try:
        v = fn()
        calls[label] = 'ok'
        return v
    except Exception as e:  # noqa: BLE001: any exception is the failure being looked for
        calls[label] = 'threw: ' + str(e)
        return None


def ranges(rl):
    return [[r.minimum(), r.maximum()] for r in rl]


def read(dev, st, want, timeout_us):
    """Reads want CF32 samples as CubicSDR does (one MTU at a time); the count read."""
    mtu = dev.getStreamMTU(st)
    buf = np.zeros(mtu, dtype=np.complex64)
    got, tries = 0, 0
    while got < want and tries < 2000:
        r = dev.readStream(st, [buf], mtu, timeoutUs=timeout_us)
        tries += 1
        if r.ret > 0:
            got += r.ret
    return got


# SDREnumerator: the device made from what enumerate() lists for the arguments (CubicSDR's
# manual entry "driver=zcs,key=..." too), its hardware info and settings read
found = [dict(k) for k in SoapySDR.Device.enumerate(args)]
values['enumerate'] = found
if not found:
    print(json.dumps(dict(calls=calls, values=values)), flush=True)
    sys.exit(1)
dev = SoapySDR.Device(found[0])
call('getHardwareInfo', lambda: dict(dev.getHardwareInfo()))
call('getSettingInfo', lambda: list(dev.getSettingInfo()))
# SDRDevicesDialog: the antennas and the stream arguments it offers
call('listAntennas(RX)', lambda: list(dev.listAntennas(SOAPY_SDR_RX, 0)))
call('getStreamArgsInfo(RX)', lambda: list(dev.getStreamArgsInfo(SOAPY_SDR_RX, 0)))
# CubicSDR::setDevice: getSampleRateNear takes the list's first element: it must not be empty
values['listSampleRates(RX)'] = call('listSampleRates(RX)',
                                     lambda: list(dev.listSampleRates(SOAPY_SDR_RX, 0)))
# SDRThread::init
st = call('setupStream(CF32)', lambda: dev.setupStream(SOAPY_SDR_RX, 'CF32', []))
call('setSampleRate(RX, 2.4M)', lambda: dev.setSampleRate(SOAPY_SDR_RX, 0, 2.4e6))
call('setFrequency(RX, RF)', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, 'RF', freq))
values['hasFrequencyCorrection'] = call('hasFrequencyCorrection',
                                        lambda: dev.hasFrequencyCorrection(SOAPY_SDR_RX, 0))
values['listFrequencies(RX)'] = call('listFrequencies(RX)',
                                     lambda: list(dev.listFrequencies(SOAPY_SDR_RX, 0)))
values['hasDCOffsetMode'] = call('hasDCOffsetMode', lambda: dev.hasDCOffsetMode(SOAPY_SDR_RX, 0))
if call('hasGainMode', lambda: dev.hasGainMode(SOAPY_SDR_RX, 0)):
    call('setGainMode(RX, false)', lambda: dev.setGainMode(SOAPY_SDR_RX, 0, False))
for a in call('getSettingInfo (init)', lambda: list(dev.getSettingInfo())) or []:
    call('readSetting(' + a.key + ')', lambda k=a.key: dev.readSetting(k))
# SDRThread::updateSettings (rate_changed): deactivate, rate, activate, MTU; then the frequency
call('deactivateStream', lambda: dev.deactivateStream(st))
call('setSampleRate(RX, 2.4M) again', lambda: dev.setSampleRate(SOAPY_SDR_RX, 0, 2.4e6))
call('getDriverKey', lambda: dev.getDriverKey())
call('activateStream', lambda: dev.activateStream(st))
values['getSampleRate(RX)'] = call('getSampleRate(RX)', lambda: dev.getSampleRate(SOAPY_SDR_RX, 0))
values['getStreamMTU'] = call('getStreamMTU', lambda: dev.getStreamMTU(st))
call('setFrequency(RX, RF) again', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, 'RF', freq))
# SDRThread::updateGains, by name
for g in call('listGains(RX)', lambda: list(dev.listGains(SOAPY_SDR_RX, 0))) or []:
    call('getGainRange(RX, ' + g + ')', lambda g=g: dev.getGainRange(SOAPY_SDR_RX, 0, g))
    call('getGain(RX, ' + g + ')', lambda g=g: dev.getGain(SOAPY_SDR_RX, 0, g))
# SDRThread::readStream: one MTU at a time, a timeout of 2^30 us
values['samples_before'] = read(dev, st, 100000, 1 << 30)
# AppFrame::handleUpdateDeviceParams: the RX antennas, then the TX ones of every device
call('listAntennas(RX) (menu)', lambda: list(dev.listAntennas(SOAPY_SDR_RX, 0)))
values['listAntennas(TX)'] = call('listAntennas(TX)', lambda: list(dev.listAntennas(SOAPY_SDR_TX, 0)))
values['getAntenna(TX)'] = call('getAntenna(TX)', lambda: dev.getAntenna(SOAPY_SDR_TX, 0))
# CubicSDR sets the configured antenna, "" when none is configured
call('setAntenna(RX, "")', lambda: dev.setAntenna(SOAPY_SDR_RX, 0, ''))
# the user's controls: a gain by name, the ppm correction as a "CORR" element
call('setGain(RX, PGA)', lambda: dev.setGain(SOAPY_SDR_RX, 0, 'PGA', 20.0))
call('setFrequencyCorrection', lambda: dev.setFrequencyCorrection(SOAPY_SDR_RX, 0, 1.5))
call('setFrequency(RX, CORR)', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, 'CORR', 1.5))
# other applications (GQRX/gr-osmosdr, SDR++, SDRangel) ask about elements and channels too
values['getFrequencyRange(RX, RF)'] = call('getFrequencyRange(RX, RF)', lambda: ranges(
    dev.getFrequencyRange(SOAPY_SDR_RX, 0, 'RF')))
values['getFrequencyRange(RX, CORR)'] = call('getFrequencyRange(RX, CORR)', lambda: ranges(
    dev.getFrequencyRange(SOAPY_SDR_RX, 0, 'CORR')))
call('getFrequency(RX, CORR)', lambda: dev.getFrequency(SOAPY_SDR_RX, 0, 'CORR'))
call('getGainRange(RX, LNA)', lambda: dev.getGainRange(SOAPY_SDR_RX, 0, 'LNA'))
call('setGain(RX, LNA)', lambda: dev.setGain(SOAPY_SDR_RX, 0, 'LNA', 10.0))
call('setGain(RX)', lambda: dev.setGain(SOAPY_SDR_RX, 0, 20.0))
call('setDCOffsetMode', lambda: dev.setDCOffsetMode(SOAPY_SDR_RX, 0, True))
call('setIQBalance', lambda: dev.setIQBalance(SOAPY_SDR_RX, 0, complex(0, 0)))
call('setBandwidth(RX, 0)', lambda: dev.setBandwidth(SOAPY_SDR_RX, 0, 0))
call('setBandwidth(RX, 1.5M)', lambda: dev.setBandwidth(SOAPY_SDR_RX, 0, 1.5e6))
call('setSampleRate(RX, 2M)', lambda: dev.setSampleRate(SOAPY_SDR_RX, 0, 2e6))
call('setFrequency(RX, -1)', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, -1.0))
for d, dn in ((SOAPY_SDR_TX, 'TX'), (SOAPY_SDR_RX, 'RX1')):
    ch = 0 if d == SOAPY_SDR_TX else 1
    for name, fn in (
            ('getStreamFormats', lambda: list(dev.getStreamFormats(d, ch))),
            ('listAntennas', lambda: list(dev.listAntennas(d, ch))),
            ('getAntenna', lambda: dev.getAntenna(d, ch)),
            ('setAntenna', lambda: dev.setAntenna(d, ch, 'RX1')),
            ('listGains', lambda: list(dev.listGains(d, ch))),
            ('hasGainMode', lambda: dev.hasGainMode(d, ch)),
            ('getGainMode', lambda: dev.getGainMode(d, ch)),
            ('setGainMode', lambda: dev.setGainMode(d, ch, True)),
            ('getGain', lambda: dev.getGain(d, ch)),
            ('getGainRange', lambda: dev.getGainRange(d, ch)),
            ('setGain', lambda: dev.setGain(d, ch, 10.0)),
            ('listFrequencies', lambda: list(dev.listFrequencies(d, ch))),
            ('getFrequency', lambda: dev.getFrequency(d, ch)),
            ('getFrequencyRange', lambda: ranges(dev.getFrequencyRange(d, ch))),
            ('setFrequency', lambda: dev.setFrequency(d, ch, 915e6)),
            ('getSampleRate', lambda: dev.getSampleRate(d, ch)),
            ('listSampleRates', lambda: list(dev.listSampleRates(d, ch))),
            ('getSampleRateRange', lambda: ranges(dev.getSampleRateRange(d, ch))),
            ('setSampleRate', lambda: dev.setSampleRate(d, ch, 2e6)),
            ('getBandwidth', lambda: dev.getBandwidth(d, ch)),
            ('getBandwidthRange', lambda: ranges(dev.getBandwidthRange(d, ch))),
            ('setBandwidth', lambda: dev.setBandwidth(d, ch, 1e6)),
            ('listSensors', lambda: list(dev.listSensors(d, ch)))):
        label = f'{name}({dn})'
        values[label] = call(label, fn)
call('getSensorInfo(nosuch)', lambda: dev.getSensorInfo('nosuch'))
call('readSensor(nosuch)', lambda: dev.readSensor('nosuch'))
# the stream still works after all of it
values['samples_after'] = read(dev, st, 100000, 1 << 30)
values['getFrequency(RX)'] = dev.getFrequency(SOAPY_SDR_RX, 0)
if wait:
    # the board goes away (the test stops the sender): a setting is logged, not thrown
    print('waiting', file=sys.stderr, flush=True)
    sys.stdin.readline()
    call('setFrequency(RX) board gone', lambda: dev.setFrequency(SOAPY_SDR_RX, 0, freq + 1e6))
    call('setSampleRate(RX) board gone', lambda: dev.setSampleRate(SOAPY_SDR_RX, 0, 1e6))
    # CubicSDR's read, 2^30 us, on the stream that ended: it returns (the module waits at most
    # its own bound), so an application's thread can stop; until then the end and the silence
    buf = np.zeros(dev.getStreamMTU(st), dtype=np.complex64)
    rets = []
    for _ in range(2000):
        rets.append(dev.readStream(st, [buf], len(buf), timeoutUs=1 << 30).ret)
        if rets[-1] == SoapySDR.SOAPY_SDR_TIMEOUT and len(rets) > 1 and rets[-2] == rets[-1]:
            break
    values['reads after the end'] = rets[-2:]
# SDRThread::deinit
call('deactivateStream (deinit)', lambda: dev.deactivateStream(st))
call('closeStream', lambda: dev.closeStream(st))
print(json.dumps(dict(calls=calls, values=values), default=str), flush=True)
