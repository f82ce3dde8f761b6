// The cost of a rejection loop on a warp (seed 004): how many times a warp of
// K lanes runs the loop body when each lane must accept once and accepts a
// proposal with probability p, exactly, as Markov chains (Eigen).
//
//   Uncached, the loop of seed 004's first listing on every lane:
//       do { x = g(); } while (!a(x));
//   The warp iterates while any lane has not accepted, so L_K is the maximum
//   of K geometric counts (>= 1). State r = lanes still without a sample;
//   one iteration takes r to r - Binomial(r, p).
//
//   Pre-cached, seed 004's second listing (a current and a cached sample a
//   lane, the loop `do { ... } while (!__all(currentValid))`), the same
//   parameters on every call. State (r, c): r lanes without a current
//   sample, c lanes with a current and a cached one (0 <= c <= K - r). One
//   iteration: r' = r - Binomial(r, p), c' = c + Binomial(K - r - c, p)
//   (a lane that gets its current sample in an iteration cannot also cache
//   in it). A call starts where the last ended: c cached samples become
//   current, none stay cached, so (0, c) at a return is (K - c, 0) at the
//   next call (seed 004 writes (K, c): errata E20). The listing's do-while
//   runs the body once even if every lane started with a sample, where the
//   note's chain would stop at once; it never matters: the lane that gets
//   the call's last current sample cannot cache in that iteration, so c <
//   K at every return and r >= 1 at every start (both variants are here,
//   and a test shows they agree).
//
// The steady state across calls is the fixed point of the map "distribution
// of c at a return -> the same at the next return", computed two ways: the
// note's (T* = lim T^n by repeated squaring of the dense matrix, then the
// map iterated; small K) and with the fundamental matrix (a sparse
// triangular solve a call; any K <= 64): the map's (K + 1) x (K + 1)
// matrix from K + 1 calls, its fixed point solved, then checked by
// applying the map until it stops changing. Means come from the fundamental
// matrix, exactly; distributions of L by stepping the chain until the tail
// is below a bound (what is left is reported).
//
// Usage:
//   const auto u = oracle::rejection::uncached_loop(32, 0.8);       // u.mean == 3.02...
//   const auto c = oracle::rejection::cached_loop(32, 0.8);         // c.loop.mean, c.cached_at_return
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <boost/math/distributions/binomial.hpp>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsim::oracle::rejection {

inline constexpr int kMaxLanes = 64;

/// The law of L, a call's warp iterations.
struct LoopLaw {
  int lanes = 0;
  double p = 0;
  std::vector<double> pmf;  ///< pmf[n] = P(L = n), n = 0 .. pmf.size() - 1
  double tail = 0;          ///< P(L >= pmf.size()): what stepping left
  double mean = 0;          ///< E[L], exact (not from the truncated pmf)
};

namespace detail {

inline void check(int lanes, double p) {
  if (!(lanes >= 1 && lanes <= kMaxLanes)) throw std::invalid_argument("rejection loop: lanes must be 1 to 64, not " + std::to_string(lanes));
  if (!(p > 0 && p <= 1)) throw std::invalid_argument("rejection loop: p must be in (0, 1], not " + std::to_string(p));
}

// Binomial(n, p) probabilities 0..n (Boost.Math: accurate at every n, p).
inline std::vector<double> binomial_row(int n, double p) {
  std::vector<double> b(static_cast<std::size_t>(n) + 1);
  if (p >= 1) {
    b[static_cast<std::size_t>(n)] = 1;
    return b;
  }
  const boost::math::binomial_distribution<double> d(n, p);
  for (int k = 0; k <= n; ++k) b[static_cast<std::size_t>(k)] = boost::math::pdf(d, k);
  return b;
}

}  // namespace detail

/// E[L_K] = sum over n >= 0 of 1 - (1 - q^n)^K, q = 1 - p (the maximum of K
/// geometrics; stable for every K and p).
inline double uncached_mean_series(int lanes, double p) {
  detail::check(lanes, p);
  const double q = 1 - p;
  double sum = 0, qn = 1;
  for (int n = 0;; ++n) {
    // 1 - (1 - q^n)^K, computed as -expm1(K log1p(-q^n)).
    const double term = qn >= 1 ? 1.0 : -std::expm1(lanes * std::log1p(-qn));
    sum += term;
    if (term < 1e-18 || n > 100000000) break;
    qn *= q;
  }
  return sum;
}

/// The same by the closed alternating sum, sum_{j=1}^{K} (-1)^(j+1) C(K, j)
/// / (1 - q^j): exact in exact arithmetic, in doubles only for small K.
inline double uncached_mean_alternating(int lanes, double p) {
  detail::check(lanes, p);
  const double q = 1 - p;
  double sum = 0, binom = 1;
  for (int j = 1; j <= lanes; ++j) {
    binom = binom * (lanes - j + 1) / j;
    sum += (j % 2 == 1 ? 1.0 : -1.0) * binom / (1 - std::pow(q, j));
  }
  return sum;
}

/// The default bound on the iterations a law's pmf is stepped through (the
/// rest is `tail`); the means do not depend on it. At p = 10^-4 on 64 lanes
/// the pmf would need about 3 x 10^5 steps to reach a tail of 10^-12.
inline constexpr std::size_t kMaxPmfIterations = std::size_t{1} << 16;
/// And on the multiply-adds spent stepping it (a step costs the chain's
/// nonzeros: (K + 1)^2 uncached, about K^4 / 24 pre-cached), so that a slowly
/// absorbing chain (p near 0) ends within a second even under the sanitizers.
inline constexpr std::size_t kPmfWork = std::size_t{1} << 24;

/// 1 - (1 - p)^n without cancellation: for p near 0, 1 - p rounds to 1 and
/// the difference would be 0 (a singular I - Q below).
inline double none_served_complement(int n, double p) { return -std::expm1(n * std::log1p(-p)); }

/// The uncached loop's law: the chain on r = 0..K from r = K.
inline LoopLaw uncached_loop(int lanes, double p, double tail_bound = 1e-12, std::size_t max_iterations = kMaxPmfIterations) {
  detail::check(lanes, p);
  const int K = lanes;
  // T(r', r) = P(r -> r'): r' = r - Binomial(r, p).
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(K + 1, K + 1);
  for (int r = 0; r <= K; ++r) {
    const auto b = detail::binomial_row(r, p);
    for (int s = 0; s <= r; ++s) T(r - s, r) += b[static_cast<std::size_t>(s)];
  }
  LoopLaw law;
  law.lanes = K;
  law.p = p;
  law.pmf.push_back(0);  // L >= 1: the body runs once
  Eigen::VectorXd x = Eigen::VectorXd::Zero(K + 1);
  x(K) = 1;
  double done = 0;
  const std::size_t steps = std::min(max_iterations, std::max<std::size_t>(64, kPmfWork / static_cast<std::size_t>((K + 1) * (K + 1))));
  for (std::size_t n = 1; n <= steps; ++n) {
    x = T * x;
    const double now = x(0);
    law.pmf.push_back(now - done);
    done = now;
    if (1 - done < tail_bound) break;
  }
  law.tail = std::max(0.0, 1 - done);
  // E[L] = 1 + expected visits to r > 0 after the first iteration:
  // (I - Q)^-1 on the transient states, Q upper triangular here (r falls).
  const Eigen::MatrixXd Q = T.bottomRightCorner(K, K);
  const Eigen::VectorXd x1 = T.col(K).tail(K);
  Eigen::MatrixXd IQ = Eigen::MatrixXd::Identity(K, K) - Q;
  for (int r = 1; r <= K; ++r) IQ(r - 1, r - 1) = none_served_complement(r, p);  // 1 - q^r, exactly enough for tiny p
  const Eigen::VectorXd visits = IQ.triangularView<Eigen::Upper>().solve(x1);
  law.mean = 1 + visits.sum();
  return law;
}

/// Which model of a pre-cached call: seed 004's listing as it runs (the
/// body at least once), or the note's chain, where a call starting with
/// every lane served (r = 0) would take no iteration. Both with the
/// call-to-call map (0, c) -> (K - c, 0).
enum class CachedVariant { listing, note_chain };

/// The pre-cached loop's chain on (r, c), its states in the order r = K ..
/// 0, c = 0 .. K - r, so that every transition goes to a later state or
/// stays: its matrix is lower triangular.
class CachedChain {
 public:
  CachedChain(int lanes, double p) : K_(lanes), p_(p) {
    detail::check(lanes, p);
    offset_.assign(static_cast<std::size_t>(K_) + 2, 0);
    int at = 0;
    for (int r = K_; r >= 0; --r) {
      offset_[static_cast<std::size_t>(r)] = at;
      at += K_ - r + 1;
    }
    states_ = at;
    std::vector<std::vector<double>> bin(static_cast<std::size_t>(K_) + 1);
    for (int n = 0; n <= K_; ++n) bin[static_cast<std::size_t>(n)] = detail::binomial_row(n, p);
    std::vector<Eigen::Triplet<double>> t;
    t.reserve(static_cast<std::size_t>(K_ + 2) * static_cast<std::size_t>(K_ + 2) * static_cast<std::size_t>(K_ + 2) * static_cast<std::size_t>(K_ + 2) / 24);
    for (int r = 0; r <= K_; ++r) {
      for (int c = 0; c <= K_ - r; ++c) {
        const auto& br = bin[static_cast<std::size_t>(r)];
        const auto& bc = bin[static_cast<std::size_t>(K_ - r - c)];
        for (int s1 = 0; s1 <= r; ++s1) {
          for (int s2 = 0; s2 <= K_ - r - c; ++s2) {
            const double v = br[static_cast<std::size_t>(s1)] * bc[static_cast<std::size_t>(s2)];
            if (v > 0) t.emplace_back(index(r - s1, c + s2), index(r, c), v);
          }
        }
      }
    }
    M_.resize(states_, states_);
    M_.setFromTriplets(t.begin(), t.end());
    M_.makeCompressed();
  }

  int lanes() const { return K_; }
  double p() const { return p_; }
  int states() const { return states_; }
  int index(int r, int c) const { return offset_[static_cast<std::size_t>(r)] + c; }
  /// One pass of the loop body from any state (the columns sum to 1).
  const Eigen::SparseMatrix<double>& iteration() const { return M_; }
  /// The first index with r = 0: states [served(), states()) have r = 0.
  int served() const { return offset_[0]; }

 private:
  int K_;
  double p_;
  int states_ = 0;
  std::vector<int> offset_;
  Eigen::SparseMatrix<double> M_;
};

/// The steady state of pre-cached calls and the law of L in it.
struct CachedSteadyState {
  Eigen::VectorXd cached_at_return;  ///< [c]: P(c lanes hold a cached sample when a call returns)
  LoopLaw loop;                      ///< a call's iterations in the steady state
  int fixed_point_steps = 0;         ///< applications of the call-to-call map that checked the solved fixed point
  double residual = 0;               ///< the last step's L1 change
};

namespace detail {

// One call from the distribution of c at the last return: the distribution
// of c at this call's return and E[L] (fundamental matrix).
struct CallResult {
  Eigen::VectorXd cached;
  double mean;
};

inline Eigen::VectorXd call_start(const CachedChain& ch, const Eigen::VectorXd& cached) {
  Eigen::VectorXd s = Eigen::VectorXd::Zero(ch.states());
  for (int c = 0; c <= ch.lanes(); ++c) s(ch.index(ch.lanes() - c, 0)) += cached(c);
  return s;
}

// A call's linear system, the same for every call of a chain: I - Q over the
// transient states (r > 0, indices [0, T0)), lower triangular, and R, from
// them to the served ones. Built once a chain (at K = 64 about 7 x 10^5
// nonzeros: building it each call was most of a steady state's time).
struct CallSystem {
  Eigen::SparseMatrix<double> IQ;
  Eigen::SparseMatrix<double> R;
};

inline CallSystem call_system(const CachedChain& ch) {
  const int K = ch.lanes(), S = ch.states(), T0 = ch.served();
  CallSystem sys;
  const Eigen::SparseMatrix<double> A = ch.iteration().topLeftCorner(T0, T0);
  Eigen::SparseMatrix<double> I(T0, T0);
  I.setIdentity();
  sys.IQ = I - A;
  // A state (r, c) stays put when none of its r lanes gets a sample and none
  // of its K - r - c lanes caches one: 1 - q^(K - c) leaves it, computed
  // without cancellation (for tiny p, 1 - A's diagonal would round to 0).
  for (int r = 1; r <= K; ++r)
    for (int c = 0; c <= K - r; ++c) sys.IQ.coeffRef(ch.index(r, c), ch.index(r, c)) = none_served_complement(K - c, ch.p());
  sys.R = ch.iteration().bottomLeftCorner(S - T0, T0);
  return sys;
}

inline CallResult one_call(const CachedChain& ch, const CallSystem& sys, const Eigen::VectorXd& cached, CachedVariant v) {
  const int K = ch.lanes(), S = ch.states(), T0 = ch.served();
  Eigen::VectorXd s = call_start(ch, cached);
  double mean = 0;
  if (v == CachedVariant::listing) {
    s = ch.iteration() * s;  // the do-while's first pass, whatever the state
    mean = 1;
  }
  // From here the transient states iterate, the served ones stop: visits =
  // (I - Q)^-1 x, absorbed = x_served + R visits.
  const Eigen::VectorXd x = s.head(T0);
  const Eigen::VectorXd visits = sys.IQ.triangularView<Eigen::Lower>().solve(x);
  mean += visits.sum();
  const Eigen::VectorXd end = s.tail(S - T0) + sys.R * visits;
  Eigen::VectorXd out = Eigen::VectorXd::Zero(K + 1);
  for (int c = 0; c <= K; ++c) out(c) = end(ch.index(0, c) - T0);
  return {out, mean};
}

}  // namespace detail

/// The steady state of pre-cached calls (the fixed point of the
/// call-to-call map from the first call, which starts with no cache), and
/// the law of L in it.
inline CachedSteadyState cached_loop(int lanes, double p, CachedVariant variant = CachedVariant::listing, double tail_bound = 1e-12,
                                     std::size_t max_iterations = kMaxPmfIterations) {
  const CachedChain ch(lanes, p);
  const detail::CallSystem sys = detail::call_system(ch);
  const int K = lanes;
  CachedSteadyState out;
  // The call-to-call map is linear in the distribution of c: its matrix,
  // column c the map of a return with c cached, and its fixed point solved
  // directly ((M - I) pi = 0 with sum pi = 1). The iteration below then
  // checks it (and refines the last bits): from this start it stops within a
  // few steps, where from "nothing cached" it took up to 10^5 steps as p
  // nears 1.
  Eigen::MatrixXd M(K + 1, K + 1);
  for (int c = 0; c <= K; ++c) {
    Eigen::VectorXd e = Eigen::VectorXd::Zero(K + 1);
    e(c) = 1;
    M.col(c) = detail::one_call(ch, sys, e, variant).cached;
  }
  Eigen::MatrixXd fixed = M - Eigen::MatrixXd::Identity(K + 1, K + 1);
  fixed.row(0).setOnes();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(K + 1);
  b(0) = 1;
  Eigen::VectorXd pi = fixed.fullPivLu().solve(b).cwiseMax(0.0);
  pi /= pi.sum();
  detail::CallResult call{};
  for (int step = 1; step <= 1000; ++step) {  // (from the solved fixed point: a few steps)
    call = detail::one_call(ch, sys, pi, variant);
    call.cached /= call.cached.sum();  // the map keeps mass 1; rounding does not
    out.residual = (call.cached - pi).lpNorm<1>();
    out.fixed_point_steps = step;
    pi = call.cached;
    if (out.residual < 1e-15) break;
  }
  if (out.residual >= 1e-12) throw std::runtime_error("rejection loop: the call-to-call map did not converge (residual " + std::to_string(out.residual) + ")");
  out.cached_at_return = pi;
  out.loop.lanes = K;
  out.loop.p = p;
  out.loop.mean = detail::one_call(ch, sys, pi, variant).mean;
  // The law of L: step the chain from the steady start.
  const int T0 = ch.served();
  Eigen::VectorXd s = detail::call_start(ch, pi);
  double done = 0;
  if (variant == CachedVariant::note_chain) {
    done = s.tail(ch.states() - T0).sum();
    out.loop.pmf.push_back(done);  // served from the cache: no iteration
  } else {
    out.loop.pmf.push_back(0);
  }
  const Eigen::SparseMatrix<double> A = ch.iteration().topLeftCorner(T0, T0);
  const Eigen::SparseMatrix<double> R = ch.iteration().bottomLeftCorner(ch.states() - T0, T0);
  Eigen::VectorXd x;
  if (variant == CachedVariant::listing) {
    s = ch.iteration() * s;
    x = s.head(T0);
    done = s.tail(ch.states() - T0).sum();
    out.loop.pmf.push_back(done);
  } else {
    x = s.head(T0);
  }
  // Each step costs the chain's nonzeros (about K^4 / 24: 7 x 10^5 at K = 64),
  // within kPmfWork.
  const std::size_t nonzeros = static_cast<std::size_t>(std::max<Eigen::Index>(1, A.nonZeros() + R.nonZeros()));
  const std::size_t steps = std::min(max_iterations, std::max<std::size_t>(64, kPmfWork / nonzeros));
  for (std::size_t n = out.loop.pmf.size(); n <= steps && 1 - done >= tail_bound; ++n) {
    const double now = (R * x).sum();
    x = A * x;
    done += now;
    out.loop.pmf.push_back(now);
  }
  out.loop.tail = std::max(0.0, 1 - done);
  return out;
}

/// The note's way to the same steady state (seed 004): T* = lim T^n by
/// repeated squaring of the dense absorbing matrix (served states kept),
/// then s_{i+1} = T* w(s_i) until it stops changing. Returns the
/// distribution of c at a return. Dense: for small K (states^2 doubles).
inline Eigen::VectorXd cached_steady_state_by_powers(int lanes, double p, CachedVariant variant = CachedVariant::listing) {
  const CachedChain ch(lanes, p);
  const int S = ch.states(), T0 = ch.served(), K = lanes;
  Eigen::MatrixXd T = Eigen::MatrixXd(ch.iteration());
  for (int j = T0; j < S; ++j) {  // served states stop
    T.col(j).setZero();
    T(j, j) = 1;
  }
  for (int k = 0; k < 64; ++k) {
    Eigen::MatrixXd T2 = T * T;
    const double change = (T2 - T).cwiseAbs().maxCoeff();
    T.swap(T2);
    if (change < 1e-16) break;
  }
  const Eigen::MatrixXd M = Eigen::MatrixXd(ch.iteration());
  Eigen::VectorXd pi = Eigen::VectorXd::Zero(K + 1);
  pi(0) = 1;
  for (int step = 0; step < 100000; ++step) {
    Eigen::VectorXd s = detail::call_start(ch, pi);
    if (variant == CachedVariant::listing) s = M * s;
    s = T * s;
    Eigen::VectorXd next(K + 1);
    for (int c = 0; c <= K; ++c) next(c) = s(ch.index(0, c));
    next /= next.sum();
    const double change = (next - pi).lpNorm<1>();
    pi = next;
    if (change < 1e-15) break;
  }
  return pi;
}

}  // namespace warpsim::oracle::rejection
