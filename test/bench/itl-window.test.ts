// Splitting streams' inter-token gaps by time window: "within" keeps gaps wholly inside,
// "overlapping" keeps any gap that touches the window, so a stall straddling its end counts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gapIndicesOverlapping, gapsAt, gapsOverlapping, gapsWithin } from '../../bench/prefix/itl-window.js';

const streams = [
  [0, 10, 20, 30, 130, 140],
  [5, 15, 25, 125, 135],
];

test('gaps wholly inside the window', () => {
  assert.equal(gapsWithin(streams, 0, 30), [10, 10, 10, 10, 10]);
  assert.equal(gapsWithin(streams, 12, 30), [10, 10]);
});

test('gaps overlapping the window include the stall that straddles it', () => {
  // A prefill from 28 to 120: stream 1's 30→130 and stream 2's 25→125 stall, 20→30 ends inside.
  assert.equal(gapsOverlapping(streams, 28, 120).sort((a, b) => a - b), [10, 100, 100]);
});

test('the gaps overlapping a window, found by position in another run of the same streams', () => {
  const during = gapIndicesOverlapping(streams, 28, 120);
  assert.equal(during, [[3, 4], [3]]);
  assert.equal(gapsAt(streams, during).sort((a, b) => a - b), [10, 100, 100]);
  // The control run: the same chunks undisturbed; a stream that stopped short gives what it has.
  const control = [
    [0, 10, 20, 30, 40, 50],
    [5, 15, 25],
  ];
  assert.equal(gapsAt(control, during), [10, 10]);
});

test('no chunks, or one chunk, give no gaps', () => {
  assert.equal(gapsWithin([[], [4]], 0, 100), []);
  assert.equal(gapsOverlapping([[], [4]], 0, 100), []);
});

test.run();
