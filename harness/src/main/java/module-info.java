/**
 * What the tools share (server processes, HTTP/1 heads, the Prometheus parser, the command line): one
 * package, all of it API, and nothing beyond the JDK's base module, so that every module may use it.
 */
module io.rc10k.harness {
    exports io.rc10k.harness;
}
