'use strict';

const get = require('lodash/get');
const { template } = require('../../scenario/template');
const { LIMITS } = require('../../scenario/limits');

// (A virtual user stopped by the run's end mid-flow: ./flow.js's CUT.)
const CUT = 'cut';

// The steps of a virtual user's flow that hold other steps, as Artillery's HTTP engine runs
// them: a loop and a parallel step. vu: the flow runner (./flow.js), whose run() each calls
// for the steps it holds; done(ok | CUT, at, code) as there.

// Artillery's loop: count (a number, a range "1-15", a template), over (a list, or the name
// of a variable holding one), whileTrue (a processor function); $loopCount and
// $loopElement (or their loopValue/loopElement names) set each round. A loop without end
// (none of them: Artillery's never ends) goes round until the run's end (io.runEnd, the last
// phase's or the closed loop's), its virtual user then stopped (CUT: neither completed nor
// failed); where the run has no end (a before or after section), the lab's loop limit.
function runLoop(vu, step, ctx, due, io, done, flow) {
  const [from, to] = loopRange(step, ctx);
  let over = null;
  let abort = false;
  if (step.over !== null) {
    over = Array.isArray(step.over) ? step.over : get(ctx.vars, step.over);
    if (!Array.isArray(over)) abort = true;
  }
  let i = from;
  ctx.vars[step.loopElement] = over ? over[i] : i;
  ctx.vars[step.loopValue] = i;
  const whileTrue = step.whileTrue ? vu.processor[step.whileTrue] : null;
  const endsWithRun = step.endless === true && Number.isFinite(io.runEnd);
  let go = true;
  const more = (at) =>
    endsWithRun
      ? at < io.runEnd && Date.now() < io.runEnd
      : !abort && (whileTrue ? go : over ? i !== over.length : i < to);
  const round = (at) => {
    if (!more(at)) return done(endsWithRun ? CUT : true, at);
    return vu.run(
      step.steps,
      ctx,
      at,
      io,
      (ok, end, code) => {
        if (ok !== true) return done(ok, end, code);
        i += 1;
        ctx.vars[step.loopValue] += 1;
        if (over) ctx.vars[step.loopElement] = over[i];
        if (!whileTrue) return round(end);
        return whileTrue(ctx, (b) => {
          go = b;
          round(end);
        });
      },
      flow,
    );
  };
  round(due);
}

// Artillery's parallel step: its steps at once, `limit` at most (async's parallelLimit, as
// Artillery runs it), sharing the virtual user's variables; done when every one has ended,
// or with the first that fails (the others end unheeded, as there). A step that waited for
// a free slot is due when the one before it ended. Their requests are made at once (templates,
// hooks) but go on the wire one after the other, in the order made: Artillery gives each
// virtual user one socket (its agent's maxSockets: 1), on which they wait their turn; their
// times count from when they were made, as Artillery's do.
function runParallel(vu, step, ctx, due, io0, done, flow) {
  const { steps, limit } = step;
  const io = oneSocket(io0);
  let started = 0;
  let running = 0;
  let ended = 0;
  let last = due;
  let over = false;
  const start = (at) => {
    while (!over && started < steps.length && running < limit) {
      const s = steps[started++];
      running += 1;
      vu.run(
        [s],
        ctx,
        at,
        io,
        (ok, end, code) => {
          if (over) return;
          running -= 1;
          ended += 1;
          last = Math.max(last, end);
          if (ok !== true) {
            over = true;
            return done(ok, end, code);
          }
          if (ended === steps.length) {
            over = true;
            return done(true, last);
          }
          return start(end);
        },
        flow,
      );
    }
  };
  start(due);
}

// A loop's count as [from, to): a number, a range "1-15", a template; none: the limit's.
function loopRange(step, ctx) {
  let from = 0;
  let to = -1;
  if (step.count !== null) {
    const c = typeof step.count === 'string' ? template(step.count, ctx) : step.count;
    if (typeof c === 'number') to = c;
    else if (typeof c === 'string' && !Number.isNaN(Number(c))) to = Number(c);
    else if (typeof c === 'string' && /\d-\d/.test(c)) [from, to] = c.split('-').map(Number);
    else to = 0;
  }
  return [from, Math.min(to === -1 ? LIMITS.loopCount : to, LIMITS.loopCount)];
}

// io whose sends wait for the one before to be answered (a virtual user's one socket).
function oneSocket(io) {
  let tail = null;
  const queue = [];
  const next = () => {
    tail = queue.shift() ?? null;
    if (tail) tail();
  };
  return Object.assign(Object.create(io), {
    send(step, vu, due, parts, then) {
      const go = () =>
        io.send(step, vu, due, parts, (...answer) => {
          next();
          then(...answer);
        });
      if (tail) queue.push(go);
      else {
        tail = go;
        go();
      }
    },
  });
}

module.exports = { runLoop, runParallel, CUT };
