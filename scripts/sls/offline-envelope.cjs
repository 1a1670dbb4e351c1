'use strict';
// A local-only serverless plugin (listed after serverless-offline). serverless-offline's HTTP
// server (hapi) refuses bodies over 10 MB itself, before any function runs; this turns that
// answer into the service's 413 / "430" envelope (contract sections 5 and 9). Deployed, the
// function's own 6 MB limit (lib/http/stack.ts) answers first. Chunked bodies over 10 MB are
// still cut by hapi with a connection reset.
class OfflineEnvelope {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:offline:start:init': () => this.install() };
  }

  install() {
    const offline = this.serverless.pluginManager.plugins.find(
      (plugin) => plugin.constructor.name === 'ServerlessOffline',
    );
    const server = offline?.internals?.().getApiGatewayServer();
    if (!server) return;
    server.ext('onPreResponse', (request, h) => {
      const response = request.response;
      if (!response?.isBoom || response.output.statusCode !== 413) return h.continue;
      const wantsXml =
        /(text|application)\/xml/i.test(request.headers.accept ?? '') ||
        /application\/xml/i.test(request.headers['content-type'] ?? '');
      const message = 'Request Entity Too Large';
      const body = wantsXml
        ? `<?xml version="1.0" encoding="UTF-8"?><result><error><errorCode>430</errorCode><message>${message}</message></error></result>`
        : JSON.stringify({ error: { errorCode: '430', message } });
      return h
        .response(body)
        .code(413)
        .type(wantsXml ? 'text/xml' : 'application/json');
    });
  }
}

module.exports = OfflineEnvelope;
