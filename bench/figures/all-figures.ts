// Every figure the benchmark takes, in the order it takes them. Memory comes first, while the
// machine is quiet; the load test, which heats everything, and the image transfers, which also
// load the disk, come last.
import type { Figure } from '../figure.js';
import { idleMemory } from './idle-memory.js';
import { imageLoadSave } from './image-load-save.js';
import { requestLoad } from './request-load.js';
import { startUpTime } from './start-up-time.js';

export const allFigures: Figure[] = [idleMemory, startUpTime, requestLoad, imageLoadSave];
