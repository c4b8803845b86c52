// Package fl is fedrepro's federated-learning round engine: client
// sampling (uniform without replacement or Bernoulli), stragglers, local
// training by shuffled mini-batch SGD, size-weighted aggregation, and the
// baselines the papers compare against (FedAvg, FedAvgM, FedProx, Scaffold,
// FedDyn, pFedMe, FedYogi).
//
// Every random draw of training round k comes from streams derived from
// (run key, "round", k, …), so a baseline's round k and an Upcycled run's
// k-th training round select the same clients and stragglers, and results do
// not depend on scheduling. Server-side state (Server) holds no reference to
// client data: code that receives only a *Server cannot touch the data.
package fl
