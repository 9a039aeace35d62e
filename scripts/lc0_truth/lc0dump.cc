// lc0dump: prints Lc0's raw network outputs (blas backend) for positions
// given on stdin as "FEN<TAB>move move ...". One output line per position:
// transform, 112 x (mask value), Q, D, 1858 raw policy logits. lc0_truth.py
// (beside it) runs it and writes a parity case file.
//
// Not part of cformer's build: it links against an Lc0 build tree (Lc0 is
// GPL-3.0, as cformer is). In Lc0's build folder, after building lc0 with the
// blas backend, compile this file with the flags compile_commands.json gives
// Lc0's own sources, and link it with every object of lc0.p except
// src_main.cc.o and lc0's link arguments (build.ninja, `build lc0:`).
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "chess/gamestate.h"
#include "neural/encoder.h"
#include "neural/factory.h"
#include "neural/loader.h"
#include "utils/optionsdict.h"

using namespace lczero;

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: lc0dump NET.pb.gz < positions\n"); return 2; }
  WeightsFile weights = LoadWeightsFromFile(argv[1]);
  auto fmt = weights.format().network_format().input();
  OptionsDict options;
  auto net = NetworkFactory::Get()->Create("blas", weights, options);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    auto tab = line.find('\t');
    std::string fen = line.substr(0, tab);
    std::vector<std::string> moves;
    if (tab != std::string::npos) {
      std::istringstream ms(line.substr(tab + 1));
      std::string m;
      while (ms >> m) moves.push_back(m);
    }
    GameState state;
    state.startpos = Position::FromFen(fen);
    ChessBoard b = state.startpos.GetBoard();
    for (auto& s : moves) {
      Move m = b.ParseMove(s);
      state.moves.push_back(m);
      b.ApplyMove(m);
      b.Mirror();
    }
    // PositionHistory, as the search tree keeps it: it counts repetitions.
    PositionHistory history;
    history.Reset(state.startpos);
    for (Move m : state.moves) history.Append(m);
    int transform = 0;
    InputPlanes planes = EncodePositionForNN(fmt, history, 8, FillEmptyHistory::FEN_ONLY, &transform);
    auto comp = net->NewComputation();
    std::vector<std::pair<unsigned long long, float>> pl;
    for (auto& p : planes) pl.push_back({(unsigned long long)p.mask, p.value});
    comp->AddInput(std::move(planes));
    comp->ComputeBlocking();
    printf("%d", transform);
    for (auto& p : pl) printf(" 0x%016llx %.9g", p.first, p.second);
    printf(" %.9g %.9g", comp->GetQVal(0), comp->GetDVal(0));
    for (int i = 0; i < 1858; i++) printf(" %.9g", comp->GetPVal(0, i));
    printf("\n");
  }
  return 0;
}
