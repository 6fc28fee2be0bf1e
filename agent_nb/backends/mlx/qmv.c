/* agent_nb decode kernel: see decode_kernel.py for why it exists and how it is built. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define QMV_SIMD 1
#else
#define QMV_SIMD 0
#endif

#define GROUP 32
#define MAXN 16

static inline float h2f(uint16_t h) {
#if QMV_SIMD
    return _cvtsh_ss(h);
#else
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) { if (man == 0) bits = sign; else { exp = 127 - 15 + 1; while (!(man & 0x400)) { man <<= 1; exp--; } man &= 0x3ff; bits = sign | (exp << 23) | (man << 13); } }
    else if (exp == 31) bits = sign | 0x7f800000 | (man << 13);
    else bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    float f; memcpy(&f, &bits, 4); return f;
#endif
}

int qmv_simd(void) { return QMV_SIMD; }

/* y[t, o] = sum_i (q[o, i] * s[o, i/32] + b[o, i/32]) * x[t, i]
   w: (O, I*bits/8) bytes as MLX packs them (little-endian uint32 words, low bits first);
   s, b: (O, I/32) float16. x: (n, I) float32, y: (n, O) float32. */
static void rows4(const uint8_t *w, const uint16_t *s, const uint16_t *b, const float *xp,
                  const float *xsum, float *y, int O, int I, int n, int o0, int o1) {
    int G = I / GROUP;
    for (int o = o0; o < o1; o++) {
        const uint8_t *wr = w + (size_t)o * (I / 2);
        const uint16_t *sr = s + (size_t)o * G, *br = b + (size_t)o * G;
#if QMV_SIMD
        __m256 acc[MAXN];
        float bias[MAXN];
        for (int t = 0; t < n; t++) { acc[t] = _mm256_setzero_ps(); bias[t] = 0.f; }
        const __m128i mask = _mm_set1_epi8(0x0f);
        for (int g = 0; g < G; g++) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(wr + g * 16));
            __m128i lo = _mm_and_si128(bytes, mask);
            __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask);
            __m256 l0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(lo));
            __m256 l1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(lo, 8)));
            __m256 h0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(hi));
            __m256 h1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(hi, 8)));
            __m256 sc = _mm256_set1_ps(h2f(sr[g]));
            float bg = h2f(br[g]);
            for (int t = 0; t < n; t++) {
                const float *xg = xp + (size_t)t * I + g * GROUP; /* 16 even then 16 odd */
                __m256 d = _mm256_mul_ps(l0, _mm256_loadu_ps(xg));
                d = _mm256_fmadd_ps(l1, _mm256_loadu_ps(xg + 8), d);
                d = _mm256_fmadd_ps(h0, _mm256_loadu_ps(xg + 16), d);
                d = _mm256_fmadd_ps(h1, _mm256_loadu_ps(xg + 24), d);
                acc[t] = _mm256_fmadd_ps(sc, d, acc[t]);
                bias[t] += bg * xsum[(size_t)t * G + g];
            }
        }
        for (int t = 0; t < n; t++) {
            __m128 v = _mm_add_ps(_mm256_castps256_ps128(acc[t]), _mm256_extractf128_ps(acc[t], 1));
            v = _mm_add_ps(v, _mm_movehl_ps(v, v));
            v = _mm_add_ss(v, _mm_movehdup_ps(v));
            y[(size_t)t * O + o] = _mm_cvtss_f32(v) + bias[t];
        }
#else
        for (int t = 0; t < n; t++) {
            float total = 0.f;
            for (int g = 0; g < G; g++) {
                const float *xg = xp + (size_t)t * I + g * GROUP;
                float d = 0.f;
                for (int k = 0; k < 16; k++) {
                    uint8_t v = wr[g * 16 + k];
                    d += (float)(v & 15) * xg[k] + (float)(v >> 4) * xg[16 + k];
                }
                total += h2f(sr[g]) * d + h2f(br[g]) * xsum[(size_t)t * G + g];
            }
            y[(size_t)t * O + o] = total;
        }
#endif
    }
}

static void rows8(const uint8_t *w, const uint16_t *s, const uint16_t *b, const float *x,
                  const float *xsum, float *y, int O, int I, int n, int o0, int o1) {
    int G = I / GROUP;
    for (int o = o0; o < o1; o++) {
        const uint8_t *wr = w + (size_t)o * I;
        const uint16_t *sr = s + (size_t)o * G, *br = b + (size_t)o * G;
#if QMV_SIMD
        __m256 acc[MAXN];
        float bias[MAXN];
        for (int t = 0; t < n; t++) { acc[t] = _mm256_setzero_ps(); bias[t] = 0.f; }
        for (int g = 0; g < G; g++) {
            __m256i bytes = _mm256_loadu_si256((const __m256i *)(wr + g * 32));
            __m128i a = _mm256_castsi256_si128(bytes), c = _mm256_extracti128_si256(bytes, 1);
            __m256 q0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(a));
            __m256 q1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(a, 8)));
            __m256 q2 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(c));
            __m256 q3 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(c, 8)));
            __m256 sc = _mm256_set1_ps(h2f(sr[g]));
            float bg = h2f(br[g]);
            for (int t = 0; t < n; t++) {
                const float *xg = x + (size_t)t * I + g * GROUP;
                __m256 d = _mm256_mul_ps(q0, _mm256_loadu_ps(xg));
                d = _mm256_fmadd_ps(q1, _mm256_loadu_ps(xg + 8), d);
                d = _mm256_fmadd_ps(q2, _mm256_loadu_ps(xg + 16), d);
                d = _mm256_fmadd_ps(q3, _mm256_loadu_ps(xg + 24), d);
                acc[t] = _mm256_fmadd_ps(sc, d, acc[t]);
                bias[t] += bg * xsum[(size_t)t * G + g];
            }
        }
        for (int t = 0; t < n; t++) {
            __m128 v = _mm_add_ps(_mm256_castps256_ps128(acc[t]), _mm256_extractf128_ps(acc[t], 1));
            v = _mm_add_ps(v, _mm_movehl_ps(v, v));
            v = _mm_add_ss(v, _mm_movehdup_ps(v));
            y[(size_t)t * O + o] = _mm_cvtss_f32(v) + bias[t];
        }
#else
        for (int t = 0; t < n; t++) {
            float total = 0.f;
            for (int g = 0; g < G; g++) {
                const float *xg = x + (size_t)t * I + g * GROUP;
                float d = 0.f;
                for (int k = 0; k < GROUP; k++) d += (float)wr[g * GROUP + k] * xg[k];
                total += h2f(sr[g]) * d + h2f(br[g]) * xsum[(size_t)t * G + g];
            }
            y[(size_t)t * O + o] = total;
        }
#endif
    }
}

/* Returns 0, or -1 for shapes it does not take (the caller checks them first). */
int qmv(const uint8_t *w, const uint16_t *s, const uint16_t *b, const float *x, float *y,
        int O, int I, int n, int bits, int threads) {
    if (I % GROUP || n < 1 || n > MAXN || (bits != 4 && bits != 8)) return -1;
    int G = I / GROUP;
    float *xp = malloc(sizeof(float) * ((size_t)n * I + (size_t)n * G));
    if (!xp) return -1;
    float *xsum = xp + (size_t)n * I;
    for (int t = 0; t < n; t++) {
        const float *xt = x + (size_t)t * I;
        for (int g = 0; g < G; g++) {
            const float *xg = xt + g * GROUP;
            float *dst = xp + (size_t)t * I + g * GROUP, sum = 0.f;
            for (int k = 0; k < GROUP; k++) sum += xg[k];
            xsum[(size_t)t * G + g] = sum;
            if (bits == 4)
                for (int k = 0; k < 16; k++) { dst[k] = xg[2 * k]; dst[16 + k] = xg[2 * k + 1]; }
            else
                memcpy(dst, xg, sizeof(float) * GROUP);
        }
    }
    if (threads < 1) threads = 1;
    #pragma omp parallel for num_threads(threads) schedule(static) if(threads > 1)
    for (int part = 0; part < threads; part++) {
        int o0 = (int)((long)O * part / threads), o1 = (int)((long)O * (part + 1) / threads);
        if (bits == 4) rows4(w, s, b, xp, xsum, y, O, I, n, o0, o1);
        else rows8(w, s, b, xp, xsum, y, O, I, n, o0, o1);
    }
    free(xp);
    return 0;
}
