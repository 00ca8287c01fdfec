import type { Language } from '../resource/types.js';
import type { Signal } from './signal.js';

/** An official runtime base image (node, python, eclipse-temurin, …) says a lot; Go's image is often only a build stage. */
const BASE_CONFIDENCE = 0.7;
const GO_BASE_CONFIDENCE = 0.6;
/** A language or framework word in the application's own image name (`acme/checkout-spring`). */
const WORD_CONFIDENCE = 0.6;

export interface ImageReference {
  /** Registry host when the reference names one (`ghcr.io`, `localhost:5000`), else undefined (Docker Hub). */
  registry?: string;
  /** Repository path without registry, tag or digest: `library/node` is written `node`, `dotnet/aspnet`, `bitnami/python`. */
  path: string;
  /** Last path component: `node`, `aspnet`, `nodejs20-debian12`. */
  name: string;
  tag?: string;
}

/** Splits an image reference the way container runtimes do (a first component with `.` or `:`, or `localhost`, is a registry). */
export function parseImageReference(image: string): ImageReference {
  const withoutDigest = image.split('@')[0] ?? '';
  const parts = withoutDigest.split('/');
  let registry: string | undefined;
  const first = parts[0] ?? '';
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    registry = first;
    parts.shift();
  }
  const last = parts.pop() ?? '';
  const colon = last.indexOf(':');
  const name = (colon >= 0 ? last.slice(0, colon) : last).toLowerCase();
  const tag = colon >= 0 ? last.slice(colon + 1) : undefined;
  const prefix = parts.map((p) => p.toLowerCase()).filter((p) => p !== 'library');
  return { ...(registry ? { registry } : {}), path: [...prefix, name].join('/'), name, ...(tag ? { tag } : {}) };
}

interface BaseRule {
  test: (ref: ImageReference) => boolean;
  lang: Language;
  confidence: number;
  framework?: string;
  /**
   * The name is a common word (`node`, `python`, `ruby`): it counts only from Docker Hub's official images or a known
   * publisher, so `calico/node` (a Go network agent) is not Node.js.
   */
  generic?: boolean;
}

/** Namespaces that republish the official runtime images (Docker Hub architectures, Bitnami, Chainguard, Red Hat UBI, …). */
const PUBLISHERS = new Set([
  '',
  'docker',
  'amd64',
  'arm64v8',
  'arm32v7',
  'bitnami',
  'chainguard',
  'cimg',
  'circleci',
  'distroless',
  'ubi8',
  'ubi9',
  'ubi10',
]);

const JAVA_BASES = new Set([
  'eclipse-temurin',
  'openjdk',
  'amazoncorretto',
  'ibm-semeru-runtimes',
  'sapmachine',
  'zulu-openjdk',
  'zulu-openjdk-alpine',
  'liberica-openjdk-debian',
  'liberica-openjdk-alpine',
  'liberica-runtime-container',
]);

/** Official (and widely used vendor) runtime images, by their last path component. */
const BASE_RULES: readonly BaseRule[] = [
  {
    test: (r) => /^node(js)?(-?\d+)?(-debian\d+|-minimal)?$/.test(r.name),
    lang: 'nodejs',
    confidence: BASE_CONFIDENCE,
    generic: true,
  },
  {
    test: (r) => /^(python|pypy)(-?\d+(\.\d+)?)?(-debian\d+|-minimal)?$/.test(r.name),
    lang: 'python',
    confidence: BASE_CONFIDENCE,
    generic: true,
  },
  { test: (r) => JAVA_BASES.has(r.name), lang: 'java', confidence: BASE_CONFIDENCE },
  {
    test: (r) => /^(java|openjdk|jre|jdk|maven|gradle)(-?\d+)?(-debian\d+|-runtime)?$/.test(r.name),
    lang: 'java',
    confidence: BASE_CONFIDENCE,
    generic: true,
  },
  { test: (r) => r.name === 'tomcat', lang: 'java', confidence: BASE_CONFIDENCE, framework: 'tomcat', generic: true },
  { test: (r) => r.name === 'jetty', lang: 'java', confidence: BASE_CONFIDENCE, framework: 'jetty', generic: true },
  { test: (r) => r.name === 'golang', lang: 'go', confidence: GO_BASE_CONFIDENCE, generic: true },
  { test: (r) => r.path === 'dotnet/aspnet', lang: 'dotnet', confidence: BASE_CONFIDENCE, framework: 'aspnetcore' },
  { test: (r) => /^dotnet\/(runtime|sdk|runtime-deps)$/.test(r.path), lang: 'dotnet', confidence: BASE_CONFIDENCE },
  { test: (r) => /^ruby(-?\d+)?$/.test(r.name), lang: 'ruby', confidence: BASE_CONFIDENCE, generic: true },
  { test: (r) => /^php(-fpm)?(-?\d+)?$/.test(r.name), lang: 'php', confidence: BASE_CONFIDENCE, generic: true },
  {
    test: (r) => r.name === 'wordpress',
    lang: 'php',
    confidence: BASE_CONFIDENCE,
    framework: 'wordpress',
    generic: true,
  },
];

function publisherOf(ref: ImageReference): string {
  return ref.path.slice(0, Math.max(0, ref.path.length - ref.name.length - 1));
}

/**
 * Words in an application image's name (split on - _ . /) and what they suggest. `node` is deliberately absent: in
 * cluster software it names a Kubernetes node (`node-exporter`, `csi-node-driver-registrar`).
 */
const WORDS: Readonly<Record<string, { lang: Language; framework?: string }>> = {
  nodejs: { lang: 'nodejs' },
  express: { lang: 'nodejs', framework: 'express' },
  expressjs: { lang: 'nodejs', framework: 'express' },
  nestjs: { lang: 'nodejs', framework: 'nestjs' },
  nextjs: { lang: 'nodejs', framework: 'nextjs' },
  java: { lang: 'java' },
  jvm: { lang: 'java' },
  spring: { lang: 'java', framework: 'spring-boot' },
  springboot: { lang: 'java', framework: 'spring-boot' },
  quarkus: { lang: 'java', framework: 'quarkus' },
  micronaut: { lang: 'java', framework: 'micronaut' },
  python: { lang: 'python' },
  django: { lang: 'python', framework: 'django' },
  flask: { lang: 'python', framework: 'flask' },
  fastapi: { lang: 'python', framework: 'fastapi' },
  golang: { lang: 'go' },
  dotnet: { lang: 'dotnet' },
  aspnet: { lang: 'dotnet', framework: 'aspnetcore' },
  aspnetcore: { lang: 'dotnet', framework: 'aspnetcore' },
  ruby: { lang: 'ruby' },
  rails: { lang: 'ruby', framework: 'rails' },
  php: { lang: 'php' },
  laravel: { lang: 'php', framework: 'laravel' },
  symfony: { lang: 'php', framework: 'symfony' },
};

/**
 * The image: an official runtime base (`node:20-alpine`, `eclipse-temurin:21-jre`, `mcr.microsoft.com/dotnet/aspnet`)
 * first; else a language or framework word in the application image's own path (`acme/orders-django`). The registry
 * host and the tag are never read (`node-registry.example.com` is not Node).
 */
export function imageSignal(image: string | undefined): Signal | undefined {
  if (!image) return undefined;
  const ref = parseImageReference(image);
  const publisher = publisherOf(ref);
  const base = BASE_RULES.find((rule) => rule.test(ref) && (!rule.generic || PUBLISHERS.has(publisher)));
  if (base) {
    return {
      lang: base.lang,
      confidence: base.confidence,
      source: 'image',
      ...(base.framework ? { framework: base.framework } : {}),
    };
  }
  const words = ref.path.split(/[-_./]+/);
  let lang: Language | undefined;
  let framework: string | undefined;
  for (const word of words) {
    const hit = Object.hasOwn(WORDS, word) ? WORDS[word] : undefined;
    if (!hit) continue;
    if (lang && hit.lang !== lang) return undefined; // `node-to-python-bridge`: the name contradicts itself, no signal
    lang = hit.lang;
    framework ??= hit.framework;
  }
  return lang ? { lang, confidence: WORD_CONFIDENCE, source: 'image', ...(framework ? { framework } : {}) } : undefined;
}
