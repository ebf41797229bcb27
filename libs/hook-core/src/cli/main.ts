#!/usr/bin/env node
// Entry point of the zerotwo-hooks binary (also the entry of its startup snapshot and single executable). A plain
// `dispatch <event>` line (each hook event) runs without the commander program (./run-cli).
import { runCli, warmUpCli } from './run-cli';
import { startCli } from './startup';

startCli((args) => {
  void runCli(args).then((code) => {
    process.exitCode = code;
  });
}, warmUpCli);
