// Loaded into berthd with --import (node refuses --cpu-prof in NODE_OPTIONS) when a soak is asked
// for a CPU profile: the inspector's profiler samples from the start, and the profile is written
// into BERTH_CPU_PROFILE_DIR as the process exits (the soak's clean stop). Open it in Chrome's
// DevTools or any .cpuprofile viewer.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BERTH_CPU_PROFILE_DIR;
if (dir !== undefined && dir !== '') {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  // 0.5 ms: fine enough to see what holds the event loop for tens of milliseconds
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  process.on('exit', () => {
    // a session in the same thread answers synchronously, so this runs before the process ends
    session.post('Profiler.stop', (err, result) => {
      if (err === null) writeFileSync(path.join(dir, `berthd-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
