// A small Node.js program profiled by Pyroscope's Node.js SDK, which pushes
// to calltree-receiver (test/t_receiver.sh): busy in burnCpu for the given
// number of seconds, flushing every second, then stopping the SDK, which
// pushes what is left.
//
//     node receiver_agent.js SERVER_ADDRESS SECONDS TOKEN
'use strict';
const Pyroscope = require('@pyroscope/nodejs');

const [serverAddress, seconds, authToken] = process.argv.slice(2);

function burnCpu(ms) {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) {
    for (let i = 0; i < 10000; i++) x += Math.sqrt(i * x + 1);
  }
  return x;
}

async function main() {
  Pyroscope.init({
    appName: 'nodeagent',
    serverAddress,
    authToken,
    flushIntervalMs: 1000,
    tags: { env: 'test', region: 'eu' },
    wall: { samplingDurationMs: 1000 },
  });
  Pyroscope.start();
  const end = Date.now() + Number(seconds) * 1000;
  while (Date.now() < end) {
    burnCpu(50);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Pyroscope.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
