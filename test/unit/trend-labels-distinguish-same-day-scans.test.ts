/**
 * The trend chart's labels tell every scan apart: the date alone when it is
 * the only scan that day, the time as well when two scans share a date, and
 * the scan's number when even the minute repeats; on the chart's axis and in
 * its caption (its text alternative) alike.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderToString } from 'preact-render-to-string';
import { TrendChart, trendLabels } from '../../src/web/components/progress.js';

const at = (iso: string) => new Date(iso);

test('two scans on the same day are labelled with their times, on the axis and in the caption', () => {
  const points = [
    { at: at('2026-12-06T09:15:00Z'), value: 40 },
    { at: at('2026-12-06T14:05:00Z'), value: 55 },
  ];
  const html = renderToString(TrendChart({ id: 'trend', title: 'Score by scan', points }));
  const axis = [...html.matchAll(/<text class="trend-axis"[^>]*text-anchor="(?:start|end)"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  assert.deepEqual(axis.slice(-2), ['6 Dec 09:15', '6 Dec 14:05']);
  assert.match(html, /<figcaption[^>]*>Score by scan: 6 Dec 09:15: 40%; 6 Dec 14:05: 55%/);
});

test('scans on different days are labelled by their dates alone', () => {
  assert.deepEqual(
    trendLabels([
      { at: at('2026-11-20T12:00:00Z'), value: 1 },
      { at: at('2026-12-06T12:00:00Z'), value: 2 },
    ]),
    ['20 Nov', '6 Dec'],
  );
});

test('scans in the same minute are told apart by their numbers, and only the repeated dates gain a time', () => {
  const labels = trendLabels([
    { at: at('2026-12-01T08:00:00Z'), value: 1 },
    { at: at('2026-12-06T12:00:10Z'), value: 2 },
    { at: at('2026-12-06T12:00:40Z'), value: 3 },
  ]);
  assert.deepEqual(labels, ['1 Dec', '6 Dec 12:00, scan 2', '6 Dec 12:00, scan 3']);
  assert.equal(new Set(labels).size, labels.length);
});
