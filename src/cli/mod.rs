pub mod fclib;
