'use strict';
// Promise.withResolvers (ES2024) for Node 20. aws-local-stepfunctions 3.0.0 calls it in
// every Task state and declares Node >= 22; on Node 22+ this file does nothing.
// Load it before anything else: node --require ./polyfill.cjs <script>
if (typeof Promise.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers() {
      let resolve;
      let reject;
      const promise = new this((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
