'use strict';

// The lab's flame graphs (lab/report/profile-html.js writes each figure.flame with its data):
// drawn with d3-flame-graph, inlined before this script, one per node, each with a search box
// (the frames that match are highlighted, their share said). Click a frame to zoom into it,
// the bottom one to zoom out. window.labFlames lists them, for the tests.
// (A block, not a function: in strict mode its names stay in it, out of the page's globals.)
/* global d3, flamegraph */
{
  const drawn = [];
  const draw = (fig) => {
    const holder = fig.querySelector('.flame-chart');
    const details = fig.querySelector('.flame-details');
    const data = JSON.parse(fig.getAttribute('data-flame'));
    const width = Math.max(300, holder.getBoundingClientRect().width || 1000);
    const tip = flamegraph.tooltip
      .defaultFlamegraphTooltip()
      .text((d) => `${d.data.name}: ${d.value} samples (${d.data.package || ''})`);
    const chart = flamegraph
      .default()
      .width(width)
      .cellHeight(18)
      .minFrameSize(2)
      .transitionDuration(300)
      .title('')
      .setDetailsElement(details)
      .tooltip(tip);
    d3.select(holder).datum(data).call(chart);
    const input = fig.querySelector('input');
    if (input) {
      input.addEventListener('input', () => {
        if (input.value) chart.search(input.value);
        else chart.clear();
      });
    }
    drawn.push({ figure: fig, chart });
  };
  const all = () => {
    for (const fig of document.querySelectorAll('figure.flame')) {
      try {
        draw(fig);
      } catch (err) {
        fig.querySelector('.flame-details').textContent = `the flame graph could not be drawn: ${err.message}`;
      }
    }
  };
  window.labFlames = drawn;
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', all);
  else all();
}
