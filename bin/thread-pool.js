// libuv's thread pool of a profile-scan process: 8 threads unless
// UV_THREADPOOL_SIZE says otherwise (libuv's own default is 4). Required
// first by bin/profile-scan.js, and imported by bench:pipeline for the
// children that run image work outside the service.
//
// Why: sharp runs every image operation on that pool (the simulator's
// renders, decoding, WebP previews), and so does every file operation, among
// them the evidence pipeline's durable writes: each blob is fsynced, then its
// directory. A thread waiting on the disk is a thread no image operation can
// use, and with 4 a worker left its cores idle while threads waited on the
// disk (bench/image-cost.ts reports the fraction of the cores the image work
// keeps busy, bench:pipeline the items per second). What it trades: four more
// threads (stack reserved, not used) in each process, and twice as many image
// operations let through the image gate at once
// (src/scanning/media/image-work.ts).
//
// When: libuv sizes its pool once, when it is first used, and an ES module
// entry is read through that pool before its first line runs. So this file
// and the entry that requires it are CommonJS (bin/package.json): a CommonJS
// entry is read synchronously, and the size set here is the one the pool gets.
'use strict';

process.env.UV_THREADPOOL_SIZE ||= '8';
