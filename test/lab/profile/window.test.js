'use strict';

const { profileWindow, parseWindow } = require('../../../lab/profile/window');

// The profile's window: the busiest stated seconds of the plan, nearest the middle among ties.
test('a ramp at its top, a spike over its spike, an endurance run in its middle; a given window as given', () => {
  expect(profileWindow([{ duration: 120, arrivalRate: 0, rampTo: 1000 }])).toMatchObject({ fromS: 105, toS: 115 });
  expect(profileWindow([{ duration: 600, arrivalRate: 50 }])).toMatchObject({ fromS: 295, toS: 305 });
  const spikes = [
    { duration: 30, arrivalRate: 10 },
    { duration: 10, arrivalRate: 100 },
    { duration: 30, arrivalRate: 10 },
  ];
  expect(profileWindow(spikes)).toMatchObject({ fromS: 30, toS: 40 });
  expect(profileWindow([{ duration: 6, arrivalRate: 10 }])).toMatchObject({ fromS: 0, toS: 6 });
  expect(profileWindow(spikes, { given: { fromS: 1, toS: 3 } })).toMatchObject({
    fromS: 1,
    toS: 3,
    rule: 'as given (--profile-window)',
  });
  expect(() => profileWindow(spikes, { given: { fromS: 60, toS: 80 } })).toThrow(/after the run's 70 s/);
  // A closed loop's phase has no rate: its middle.
  expect(profileWindow([{ duration: 30 }])).toMatchObject({ fromS: 10, toS: 20 });
});

test('--profile-window FROM-TO', () => {
  expect(parseWindow('20-30')).toEqual({ fromS: 20, toS: 30 });
  expect(() => parseWindow('30-20')).toThrow();
  expect(() => parseWindow('0-700')).toThrow();
  expect(() => parseWindow('soon')).toThrow();
});
