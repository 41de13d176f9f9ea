'use strict';

const { answeredBy, triedBy, byReplica } = require('../../../lab/measure/upstream');

describe('the replica that answered, from what the entry named', () => {
  test("nginx's list of the replicas a request tried: the last one answered", () => {
    expect(answeredBy('10.0.1.5:3000')).toBe('10.0.1.5:3000');
    expect(answeredBy('10.0.1.5:3000, 10.0.1.6:3000')).toBe('10.0.1.6:3000');
    expect(answeredBy('10.0.1.5:3000, 10.0.1.6:3000 : 10.0.1.7:3000')).toBe('10.0.1.7:3000');
    expect(answeredBy('replica-2')).toBe('replica-2');
    expect(answeredBy(undefined)).toBeUndefined();
  });

  test('every replica a request tried, in order', () => {
    expect(triedBy('10.0.1.5:3000')).toEqual(['10.0.1.5:3000']);
    expect(triedBy('10.0.1.5:3000, 10.0.1.6:3000 : 10.0.1.7:3000')).toEqual([
      '10.0.1.5:3000',
      '10.0.1.6:3000',
      '10.0.1.7:3000',
    ]);
  });

  test('answers by replica: a retried answer counts once, for the replica that answered, by its name', () => {
    const counts = { '127.0.0.1:4001': 5, '127.0.0.1:4002': 4, '127.0.0.1:4001, 127.0.0.1:4002': 2, other: 1 };
    const names = { '127.0.0.1:4001': 'replica-1', '127.0.0.1:4002': 'replica-2' };
    expect(byReplica(counts, names)).toEqual({ 'replica-1': 5, 'replica-2': 6, other: 1 });
  });
});
