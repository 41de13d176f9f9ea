'use strict';

const { SIGNAL } = require('./scenarios');

// The signal endpoint's stages for one scenario, scaled like every other run: --scale
// multiplies durations (at least 1 s each), --rate-scale the participant counts, --duration
// sets an endurance run's hold. Each stage gets a name for the progress line and the report.
function signalStages(scenario, { scale = 1, rateScale = 1, durationS } = {}) {
  let from = 0;
  return SIGNAL[scenario].map((st) => {
    const duration = Math.max(1, Math.round((st.hold && durationS !== undefined ? durationS : st.duration) * scale));
    const target = Math.max(1, Math.round(st.target * rateScale));
    const name = from === target ? `hold ${target} participants` : `${from} to ${target} participants`;
    from = target;
    return { name, duration, target };
  });
}

module.exports = { signalStages };
