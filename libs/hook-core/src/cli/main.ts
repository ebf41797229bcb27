#!/usr/bin/env node
// Entry point of the zerotwo-hooks binary.
import { runCli } from './program';

void runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
