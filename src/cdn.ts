/**
 * Entry of the `<script>` build (`dist/cdn/svc.min.js`): rollup wraps it in an IIFE whose exports become the global
 * `Svc`. The recorder's dynamic import is inlined there, because a script tag has no module loader to fetch chunks.
 */
export * from './index';
