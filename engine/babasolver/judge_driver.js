#!/usr/bin/env node
// Plays levels in the Keke competition's judge and reports how each went.
//
// usage: node judge_driver.js JUDGE_DIR < jobs.jsonl > results.jsonl
//
// JUDGE_DIR holds the judge's simulation.js (the competition's Keke_JS/js, or
// ../shared/keke-reference). Each input line is a job:
//   {"ascii": "<Keke map>", "actions": "udlrs...", "frames": false}
// and gets one output line:
//   {"won_at": k or null, "illegal_at": k or null, "played": n, "frames": [...]}
// won_at is the first turn that wins, illegal_at the first turn whose
// destruction the judge cannot book (it names an object twice, or one no
// longer in play: RULES.md, "Turns the judge cannot play"); play stops at
// either. With "frames": true, frames[k] is the judge's view after k turns:
//   {"objects": [[name, x, y, facing, hidden], ...], "texts": [[name, x, y, hidden], ...],
//    "rules": ["baba is you", ...], "won": bool, "illegal": bool}
'use strict';
const { once } = require('events');
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const judgeFile = path.join(process.argv[2] || '.', 'simulation.js');
const source = fs.readFileSync(judgeFile, 'utf8');
const hook = 'function destroyObjs(dead, state){';
if (!source.includes(hook)) {
  process.stderr.write(`${judgeFile}: not the Keke judge (no destroyObjs to watch)\n`);
  process.exit(3);
}

// Before the judge removes a batch of destroyed objects, note whether the
// batch names one twice or names one already out of play.
let broken = false;
const context = {
  module: { exports: {} },
  console,
  require,
  __watchDestroy(dead, state) {
    const named = new Set();
    for (const pair of dead) {
      for (const thing of pair) {
        if (named.has(thing) || !state.phys.includes(thing)) broken = true;
        named.add(thing);
      }
    }
  },
};
context.exports = context.module.exports;
vm.runInNewContext(source.replace(hook, hook + ' __watchDestroy(dead, state);'), context,
  { filename: judgeFile });
const judge = context.module.exports;

function view(state, won) {
  const slots = state.obj_map;
  const hidden = (thing) => !(slots[thing.y] && slots[thing.y][thing.x] === thing);
  return {
    objects: state.phys.map((o) => [o.name, o.x, o.y, o.dir || 'none', hidden(o)]),
    texts: state.words.map((w) => [w.name, w.x, w.y, hidden(w)]),
    rules: state.rules.map((rule) => rule.split('-').join(' ')),
    won,
    illegal: broken,
  };
}

const jobs = fs.readFileSync(0, 'utf8').split('\n').filter((line) => line.trim());

function play(line) {
  const job = JSON.parse(line);
  broken = false;
  judge.setupLevel(judge.parseMap(job.ascii));
  let state = judge.getGamestate();
  const frames = job.frames ? [view(state, false)] : undefined;
  const result = { won_at: null, illegal_at: null, played: 0 };
  const moves = judge.transSol(job.actions || '');
  for (let turn = 1; turn <= moves.length; turn++) {
    const outcome = judge.nextMove(moves[turn - 1], state);
    state = outcome.next_state;
    result.played = turn;
    if (frames) frames.push(view(state, outcome.won));
    if (broken) { result.illegal_at = turn; break; }
    if (outcome.won) { result.won_at = turn; break; }
  }
  if (frames) result.frames = frames;
  return JSON.stringify(result) + '\n';
}

// A pipe takes what the reader has room for: a write the stream cannot take
// yet is waited for ('drain'). Unwaited, gigabytes of frames queued up and
// the pipe's writev failed with ENOBUFS.
async function main() {
  for (const line of jobs) {
    if (!process.stdout.write(play(line))) await once(process.stdout, 'drain');
  }
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
