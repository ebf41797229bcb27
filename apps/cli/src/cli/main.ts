#!/usr/bin/env node
// hookwarden entry point (also the bundle entry for packaging).
import { main } from './run';

// A closed pipe (`hookwarden … | head`) ends the program quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

void main(process.argv).then((code) => {
  process.exitCode = code;
});
