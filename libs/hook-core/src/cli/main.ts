#!/usr/bin/env node
// Entry point of the zerotwo-hooks binary (also the entry of its startup snapshot and single executable).
import { runCli } from './program';
import { startCli } from './startup';
import { warmUpCli } from './warm-up';

startCli((args) => {
  void runCli(args).then((code) => {
    process.exitCode = code;
  });
}, warmUpCli);
