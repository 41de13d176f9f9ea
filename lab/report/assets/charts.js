'use strict';

// The one script of the lab's pages that have charts: it draws every <figure class="chart">
// (lab/report/chart.js writes their data) with uPlot, inlined before it in the same page, so a
// page opens from file:// with nothing fetched. What a reader gets:
//   - round ticks: 1, 2 or 5 x 10^n, and time axes in s, min or h;
//   - under the pointer, every series' value at that x, in the legend (text in the page);
//   - drag across to zoom into a stretch, double-click to see it all again;
//   - a click on a legend entry hides or shows its series;
//   - the phases' starts as dashed lines, failing stretches shaded.
// window.labCharts.update(element, html) replaces a live page's body and keeps its charts
// (the live dashboard): a chart of the same title and series gets the new data, and keeps
// the reader's zoom.
// (A block, not a function: in strict mode its names, functions too, stay in it, out of the
// page's globals.)
/* global uPlot */
{
  // figure -> its chart's state { fig, plot, spec, zoomed }: one object for the chart's life,
  // moved to the new figure when the live page replaces it.
  const charts = new Map();

  // 1, 2, 5 x 10^n: what a numeric axis may step by.
  const NUM_INCRS = [];
  for (let e = -6; e <= 9; e++) for (const m of [1, 2, 5]) NUM_INCRS.push(Number((m * 10 ** e).toPrecision(1)));
  // Seconds: 1, 2 or 5 x 10^n of whole seconds, minutes (60 s and up) or hours (3,600 s and up).
  const TIME_INCRS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 60, 120, 300, 600, 1200, 3600, 7200, 18000, 36000, 72000];

  const decimals = (incr) => Math.max(0, -Math.floor(Math.log10(incr) + 1e-9));
  const number = (v, incr) => {
    const d = incr ? decimals(incr) : Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 1 ? 2 : 3;
    return Number(v.toFixed(Math.min(d, 6))).toLocaleString('en', { maximumFractionDigits: Math.min(d, 6) });
  };
  // A time tick in the unit its step calls for.
  const timeTick = (v, incr) => {
    if (incr >= 3600) return `${number(v / 3600, incr / 3600)} h`;
    if (incr >= 60) return `${number(v / 60, incr / 60)} min`;
    return `${number(v, incr)} s`;
  };
  const readout = (v) => (v === null || v === undefined ? '–' : number(v));

  function options(state, width) {
    const { spec } = state;
    const hasRight = spec.series.some((s) => s.axis === 'right');
    const remember = (key) => (u, splits, axis, space, incr) => {
      const labels = splits.map((v) => (key === 'x' && spec.time ? timeTick(v, incr) : number(v, incr)));
      // The ticks as the reader sees them, in the page too (tests and assistive tools).
      state.fig.dataset[key === 'x' ? 'ticksX' : key === 'y' ? 'ticksY' : 'ticksY2'] = labels.join(' | ');
      return labels;
    };
    const yRange = (max) => (u, dmin, dmax) => {
      const lo = Math.min(0, dmin ?? 0);
      const hi = max ?? (dmax > lo ? dmax * 1.05 : lo + 1);
      return [lo, hi];
    };
    return {
      width,
      height: spec.height,
      cursor: { drag: { x: true, y: false, setScale: true } },
      legend: { live: true },
      scales: {
        x: {
          time: false,
          // The page's own limits (a run's axis from 0) when the whole data is shown; a
          // reader's zoom (a narrower span) as asked.
          range: (u, dmin, dmax) => {
            const xs = u.data[0];
            const whole = !xs.length || (dmin <= xs[0] && dmax >= xs[xs.length - 1]);
            const lo = whole ? Math.min(spec.xMin ?? dmin, dmin) : dmin;
            const hi = whole ? Math.max(spec.xMax ?? dmax, dmax) : dmax;
            return hi > lo ? [lo, hi] : [lo - 1, lo + 1];
          },
        },
        y: { range: yRange(spec.yMax) },
        ...(hasRight ? { y2: { range: yRange(spec.y2Max) } } : {}),
      },
      axes: [
        {
          label: spec.xLabel,
          incrs: spec.time ? TIME_INCRS : spec.integerX ? NUM_INCRS.filter((i) => i >= 1) : NUM_INCRS,
          values: remember('x'),
          space: 60,
        },
        { label: spec.yLabel, incrs: NUM_INCRS, values: remember('y'), size: 60 },
        ...(hasRight
          ? [
              {
                side: 1,
                scale: 'y2',
                label: spec.y2Label,
                incrs: NUM_INCRS,
                values: remember('y2'),
                grid: { show: false },
                size: 60,
              },
            ]
          : []),
      ],
      series: [
        { label: spec.xLabel || 'x', value: (u, v) => (v === null ? '–' : spec.time ? `${number(v)} s` : number(v)) },
        ...spec.series.map((s) => ({
          label: hasRight && spec.y2Label ? `${s.name} (${s.axis})` : s.name,
          stroke: s.color,
          width: 1.6,
          dash: s.dashed ? [6, 4] : undefined,
          scale: s.axis === 'right' ? 'y2' : 'y',
          spanGaps: !s.scatter,
          value: (u, v) => readout(v),
          points: { show: s.dots || s.scatter, size: 5, fill: s.color, stroke: s.color },
          ...(s.scatter ? { paths: () => null } : {}),
        })),
      ],
      hooks: {
        drawClear: [(u) => marks(u, state.spec, 'bands')],
        draw: [(u) => marks(u, state.spec, 'markers')],
        // Zoomed: the x scale shows less than the whole data (a drag); a double-click's reset
        // shows it all again. A live chart that is zoomed keeps its span across updates.
        setScale: [
          (u, key) => {
            const xs = u.data[0];
            if (key !== 'x' || !xs.length) return;
            state.zoomed = u.scales.x.min > xs[0] || u.scales.x.max < xs[xs.length - 1];
          },
        ],
      },
    };
  }

  // The phases' starts (dashed lines, labelled) and failing stretches (shaded), on the canvas.
  function marks(u, spec, which) {
    const { ctx, bbox } = u;
    const px = (x) => u.valToPos(x, 'x', true);
    const dpr = window.devicePixelRatio || 1;
    ctx.save();
    ctx.font = `${10 * dpr}px system-ui, sans-serif`;
    if (which === 'bands') {
      for (const b of spec.bands) {
        const x0 = Math.max(bbox.left, px(b.from));
        const x1 = Math.min(bbox.left + bbox.width, px(b.to));
        if (x1 <= x0) continue;
        ctx.fillStyle = 'rgba(214, 39, 40, 0.12)';
        ctx.fillRect(x0, bbox.top, x1 - x0, bbox.height);
        ctx.fillStyle = '#a00';
        ctx.fillText(b.label, x0 + 3 * dpr, bbox.top + bbox.height - 4 * dpr);
      }
    } else {
      ctx.strokeStyle = '#999';
      ctx.fillStyle = '#666';
      ctx.setLineDash([3 * dpr, 3 * dpr]);
      for (const m of spec.markers) {
        const x = px(m.x);
        if (x < bbox.left || x > bbox.left + bbox.width) continue;
        ctx.beginPath();
        ctx.moveTo(x, bbox.top);
        ctx.lineTo(x, bbox.top + bbox.height);
        ctx.stroke();
        ctx.fillText(m.label, x + 3 * dpr, bbox.top + 11 * dpr);
      }
    }
    ctx.restore();
  }

  const widthOf = (fig, spec) => Math.max(280, Math.min(fig.clientWidth || spec.width, 1100));
  const sameSeries = (a, b) =>
    a.series.length === b.series.length &&
    a.series.every((s, i) => s.name === b.series[i].name && s.axis === b.series[i].axis);

  function draw(fig, reuse) {
    const spec = JSON.parse(fig.dataset.chart);
    const slot = fig.querySelector('.plot');
    if (reuse && sameSeries(reuse.spec, spec)) {
      // The live page's update: the chart moves into the new figure with its new data; a
      // reader's zoom stays where it was.
      slot.replaceWith(reuse.plot.root.parentNode);
      // Its ticks go with it: a zoomed chart's new data may redraw no axis, and the new
      // figure would say none (a live page once was read between the two).
      for (const key of ['ticksX', 'ticksY', 'ticksY2'])
        if (reuse.fig.dataset[key] !== undefined) fig.dataset[key] = reuse.fig.dataset[key];
      reuse.fig = fig;
      reuse.spec = spec;
      charts.set(fig, reuse);
      reuse.plot.setData(spec.data, !reuse.zoomed);
      return;
    }
    if (reuse) reuse.plot.destroy();
    const state = { fig, spec, zoomed: false, plot: null };
    charts.set(fig, state);
    state.plot = new uPlot(options(state, widthOf(fig, spec)), spec.data, slot);
  }

  function drawAll(root = document) {
    for (const fig of root.querySelectorAll('figure.chart[data-chart]')) if (!charts.has(fig)) draw(fig, null);
  }

  // Replaces `el`'s content with `html`, keeping each chart that is there again (by title).
  function update(el, html) {
    const old = new Map();
    for (const [fig, c] of charts) {
      if (!el.contains(fig)) continue;
      old.set(c.spec.title, c);
      charts.delete(fig);
      // (Detached before the content goes, so the chart survives it.)
      const slot = c.plot.root.parentNode;
      if (slot && slot.parentNode) slot.parentNode.removeChild(slot);
    }
    el.innerHTML = html;
    for (const fig of el.querySelectorAll('figure.chart[data-chart]')) {
      const title = JSON.parse(fig.dataset.chart).title;
      const reuse = old.get(title);
      old.delete(title);
      draw(fig, reuse || null);
    }
    for (const c of old.values()) c.plot.destroy();
  }

  window.addEventListener('resize', () => {
    for (const [fig, c] of charts) c.plot.setSize({ width: widthOf(fig, c.spec), height: c.spec.height });
  });
  window.labCharts = { drawAll, update, charts };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => drawAll());
  else drawAll();
}
