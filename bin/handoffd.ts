#!/usr/bin/env node
// handoffd: deliver every outbox file to its recipients and wake idle panes (foreground).
import { runHandoffdCommand } from '../lib/cli/handoffd.js';

void runHandoffdCommand(process.argv.slice(2));
