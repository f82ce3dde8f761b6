// warpsim._warpsim: the binding of python/src/core.hpp and samplers.hpp.
// Arrays arrive described (python/warpsim/_arrays.py turns NumPy, PyTorch,
// JAX and CuPy arrays into tuples of address, type, shape, device, stream);
// the work runs without the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/src/core.hpp"
#include "python/src/samplers.hpp"

namespace py = pybind11;
using namespace warpsim::python;

namespace {

// (address, type string, shape, device, stream): python/warpsim/_arrays.py's Described.desc.
Array array_of(const py::tuple& d) {
  if (d.size() != 5) throw BadInput("an array's description is (address, type, shape, device, stream)");
  Array a;
  a.data = d[0].cast<std::uintptr_t>();
  a.typestr = d[1].cast<std::string>();
  a.shape = d[2].cast<std::vector<std::uint64_t>>();
  a.device = d[3].cast<int>();
  a.stream = d[4].cast<std::uintptr_t>();
  return a;
}

std::optional<Array> optional_array(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  return array_of(o.cast<py::tuple>());
}

}  // namespace

PYBIND11_MODULE(_warpsim, m) {
  m.doc() = "warpsim's C++ core: validate draws and values, and warpsim's samplers (use the warpsim package)";
  py::register_exception<BadType>(m, "BadType", PyExc_TypeError);
  py::register_exception<BadInput>(m, "BadInput", PyExc_ValueError);

  py::class_<Report>(m, "Report")
      .def_property_readonly("consistent", &Report::consistent)
      .def("json", &Report::json)
      .def("summary_json", &Report::summary_json)
      .def("html", &Report::html)
      .def("text", &Report::text);

  m.def(
      "validate_draws",
      [](const py::tuple& weights, const py::tuple& draws, const py::object& uniforms, const py::object& row_seeds, double alpha,
         std::optional<std::string> dtype, bool adds_in_order, bool progress) {
        DrawsArgs a{array_of(weights), array_of(draws), optional_array(uniforms), optional_array(row_seeds), alpha, std::move(dtype), adds_in_order,
                    progress};
        py::gil_scoped_release free;
        return validate_draws(a);
      },
      py::arg("weights"), py::arg("draws"), py::arg("uniforms"), py::arg("row_seeds"), py::arg("alpha"), py::arg("dtype"), py::arg("adds_in_order"),
      py::arg("progress"));
  m.def(
      "validate_values",
      [](const py::tuple& values, std::string law, double alpha, std::optional<std::string> rounded_to, std::optional<std::string> clamp_low,
         std::optional<std::string> clamp_high, bool progress) {
        ValuesArgs a{array_of(values), std::move(law), alpha, std::move(rounded_to), std::move(clamp_low), std::move(clamp_high), progress};
        py::gil_scoped_release free;
        return validate_values(a);
      },
      py::arg("values"), py::arg("law"), py::arg("alpha"), py::arg("rounded_to"), py::arg("clamp_low"), py::arg("clamp_high"), py::arg("progress"));
  m.def("draws_for_total_variation", &draws_for_total_variation, py::arg("k"), py::arg("alpha"), py::arg("tv"));
  m.def("request_seed", &request_seed, py::arg("seed"), py::arg("row"));
  m.def("built_with_cuda", &built_with_cuda);
  m.def("device_unavailable", &device_unavailable);
  m.def("pointer_device", &pointer_device);

  m.def(
      "multinomial",
      [](const py::tuple& weights, const py::tuple& out, int num_samples, std::uint64_t seed, bool check) {
        const Array w = array_of(weights), o = array_of(out);
        py::gil_scoped_release free;
        multinomial(w, o, num_samples, seed, check);
      },
      py::arg("weights"), py::arg("out"), py::arg("num_samples"), py::arg("seed"), py::arg("check") = true);
  // The C++ API's time for the same call, without Python: `reps` calls of
  // multinomial, synchronised once (the performance docs' comparison).
  m.def(
      "_time_multinomial",
      [](const py::tuple& weights, const py::tuple& out, int num_samples, std::uint64_t seed, bool check, int reps) {
        const Array w = array_of(weights), o = array_of(out);
        py::gil_scoped_release free;
        return time_multinomial(w, o, num_samples, seed, check, reps);
      },
      py::arg("weights"), py::arg("out"), py::arg("num_samples"), py::arg("seed"), py::arg("check"), py::arg("reps"));
  m.def(
      "sample_tokens",
      [](const py::tuple& logits, const py::tuple& out, std::vector<float> temperature, std::vector<std::int64_t> top_k, std::vector<float> top_p,
         std::vector<float> min_p, std::vector<std::uint64_t> seed, std::vector<std::uint64_t> offset, int draws, bool seed_is_batch) {
        const Array x = array_of(logits), o = array_of(out);
        TokenRows rows{std::move(temperature), std::move(top_p), std::move(min_p), std::move(top_k), std::move(seed), std::move(offset), seed_is_batch};
        py::gil_scoped_release free;
        sample_tokens(x, o, rows, draws);
      },
      py::arg("logits"), py::arg("out"), py::arg("temperature"), py::arg("top_k"), py::arg("top_p"), py::arg("min_p"), py::arg("seed"),
      py::arg("offset"), py::arg("draws"), py::arg("seed_is_batch"));
  m.def(
      "token_probabilities",
      [](const py::tuple& logits, const py::tuple& out, std::vector<float> temperature, std::vector<std::int64_t> top_k, std::vector<float> top_p,
         std::vector<float> min_p) {
        const Array x = array_of(logits), o = array_of(out);
        TokenRows rows{std::move(temperature), std::move(top_p), std::move(min_p), std::move(top_k), {0}, {0}};
        py::gil_scoped_release free;
        token_probabilities(x, o, rows);
      },
      py::arg("logits"), py::arg("out"), py::arg("temperature"), py::arg("top_k"), py::arg("top_p"), py::arg("min_p"));
  py::class_<AliasTable>(m, "AliasTable")
      .def(py::init([](const py::tuple& weights) {
             const Array w = array_of(weights);
             py::gil_scoped_release free;
             return std::make_unique<AliasTable>(w);
           }),
           py::arg("weights"))
      .def_property_readonly("size", &AliasTable::size)
      .def_property_readonly("device", &AliasTable::device)
      .def(
          "sample",
          [](const AliasTable& t, const py::tuple& out, std::uint64_t seed, std::uint64_t first) {
            const Array o = array_of(out);
            py::gil_scoped_release free;
            t.sample(o, seed, first);
          },
          py::arg("out"), py::arg("seed"), py::arg("first"))
      .def(
          "counts",
          [](const AliasTable& t, const py::tuple& out, std::uint64_t n, std::uint64_t seed) {
            const Array o = array_of(out);
            py::gil_scoped_release free;
            t.counts(o, n, seed);
          },
          py::arg("out"), py::arg("n"), py::arg("seed"));
  m.def(
      "gamma",
      [](const py::tuple& shape, const py::tuple& out, std::uint64_t seed, std::uint64_t first) {
        const Array s = array_of(shape), o = array_of(out);
        py::gil_scoped_release free;
        gamma(s, o, seed, first);
      },
      py::arg("shape"), py::arg("out"), py::arg("seed"), py::arg("first"));
  m.def(
      "dirichlet",
      [](const py::tuple& alpha, const py::tuple& out, std::uint64_t seed) {
        const Array a = array_of(alpha), o = array_of(out);
        py::gil_scoped_release free;
        dirichlet(a, o, seed);
      },
      py::arg("alpha"), py::arg("out"), py::arg("seed"));
}
