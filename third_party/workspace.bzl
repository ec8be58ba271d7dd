"""Every external dependency of the monorepo, each from its own folder."""

load("//third_party/cuda:workspace.bzl", cuda = "repo")
load("//third_party/gloo:workspace.bzl", gloo = "repo")
load("//third_party/gtest:workspace.bzl", gtest = "repo")
load("//third_party/onednn:workspace.bzl", onednn = "repo")
load("//third_party/python:workspace.bzl", python = "repo")

def oneflow_dependencies():
    python()
    onednn()
    gloo()
    gtest()
    cuda()
