"""The Streamlit dashboard (run with `streamlit run app/streamlit_app.py`)."""
